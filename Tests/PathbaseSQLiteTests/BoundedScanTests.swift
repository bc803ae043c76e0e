import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: a bounded scan reads one window of a model's instances and says where the next starts")
struct BoundedScanTests {

    /// People 1...60 aged `id % 4`; every fifth one deleted.
    private func makeFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("scan.sqlite")
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        try database.batch {
            for id in 1 ... 60 {
                let person = Person.create(in: database, id: id, name: "P\(id)", age: id % 4)
                if id % 5 == 0 { person.delete() }
            }
        }
        return path
    }

    private func aged(_ age: Int) -> StoredPredicate {
        .condition(StoredCondition(propertyId: 2, storedAs: Int.self, operation: .equal, operands: [.integer(Int64(age))], matchesNil: false, matchesDefault: false))
    }

    /// The active people aged 1, as evaluating the filter on models finds them.
    private var expected: [InstanceKey] {
        (1 ... 60).filter { $0 % 4 == 1 && $0 % 5 != 0 }
    }

    @Test("windows scanned one after another find exactly the active matches, each window at most its size")
    func windowsCoverTheModel() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: try makeFile(in: directory), options: .init(readOnly: true))
        defer { database.close() }
        var found: [InstanceKey] = []
        var after: InstanceKey?
        var windows = 0
        repeat {
            let window = try #require(database.scanInstances(of: Person.modelId, where: aged(1), after: after, window: 7, limit: 100))
            #expect(window.matches.allSatisfy { $0 > (after ?? .min) && $0 <= (window.resumeAfter ?? .max) })
            // Seven instances a window (ids 1...60 are dense): the next starts after the 7th.
            #expect(window.resumeAfter == nil || window.resumeAfter == (after ?? 0) + 7)
            found += window.matches
            after = window.resumeAfter
            windows += 1
        } while after != nil && windows < 100
        #expect(found == expected)
        #expect(windows == 9, "60 instances in windows of 7")
        #expect(!database.hasValueIndex(model: Person.modelId, property: 2))
    }

    @Test("a limit ends a window at its last match, and the next call goes on from there")
    func limitResumesAtTheLastMatch() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: try makeFile(in: directory), options: .init(readOnly: true))
        defer { database.close() }
        let first = try #require(database.scanInstances(of: Person.modelId, where: aged(1), after: nil, window: 1000, limit: 3))
        #expect(first.matches == Array(expected.prefix(3)))
        #expect(first.resumeAfter == expected[2])
        let rest = try #require(database.scanInstances(of: Person.modelId, where: aged(1), after: first.resumeAfter, window: 1000, limit: 100))
        #expect(rest.matches == Array(expected.dropFirst(3)))
        #expect(rest.resumeAfter == nil, "the window reached the last instance")
    }

    @Test("a scan creates no index on a writable file, and a query that made one is seen")
    func scansLeaveIndexesAlone() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: try makeFile(in: directory))
        defer { database.close() }
        #expect(database.scanInstances(of: Person.modelId, where: aged(1), after: nil, window: 1000, limit: 100)?.matches == expected)
        #expect(!database.hasValueIndex(model: Person.modelId, property: 2))
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age == 1)).map(\.id) == expected)
        #expect(database.hasValueIndex(model: Person.modelId, property: 2))
        // With the index there, the scan still reads its window in id order.
        #expect(database.scanInstances(of: Person.modelId, where: aged(1), after: 20, window: 20, limit: 100)?.matches == expected.filter { $0 > 20 && $0 <= 40 })
    }
}
