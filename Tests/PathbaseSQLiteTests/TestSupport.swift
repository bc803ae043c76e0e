import CPathbaseBodies
import Foundation
import GRDB
import Pathbase
import PathbaseSQLite

/// A GRDB queue on a file, for tests that read or edit a Pathbase file by hand: it can read
/// instance bodies (the `current_values` view, `pathbase_pack`, value indexes), as every
/// connection of `SQLiteDatabase` can.
func rawQueue(path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        _ = pathbase_register_bodies(UnsafeMutableRawPointer(db.sqliteConnection))
    }
    return try DatabaseQueue(path: path, configuration: configuration)
}

/// A temporary directory for one test, removed when the value is released.
final class TemporaryDirectory {

    let path: String

    init() {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pathbase-sqlite-tests-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path for a file in the directory.
    func file(_ name: String = "test.sqlite") -> String {
        path + "/" + name
    }
}

/// Collects the errors an ``SQLiteDatabase`` reports.
final class ErrorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [SQLiteDatabaseError] = []

    var errors: [SQLiteDatabaseError] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    var handler: @Sendable (SQLiteDatabaseError) -> Void {
        { [self] error in
            lock.lock()
            stored.append(error)
            lock.unlock()
        }
    }
}

struct TestError: Error {}

struct Address: Codable, Equatable, Sendable {
    var street: String
    var number: Int
}

enum Priority: String, Codable, Sendable {
    case low, high
}

// Model ids 1–19 in this target.

@Model(id: 1)
final class Person {
    @Property(id: 1) var name: String
    @Property(id: 2) var age: Int
    @Property(id: 3) var address: Address = Address(street: "", number: 0)
    @Property(id: 4) var nickname: String?
    @Property(id: 5) var isAdmin: Bool
    @Property(id: 6) var avatar: Data
    @Property(id: 7) var score: Double
    @Reference(id: 8) var partner: Person?
    @ReferenceList(id: 9) var friends: [Person]
    @Property(id: 10) var tags: Set<String>
    @Property(id: 11) var priority: Priority = .low
    @Property(id: 12) var birthday: Date?
}

@Model(id: 2)
final class Item {
    @Property(id: 1) var title: String
    @Property(id: 2) var count: Int
}
