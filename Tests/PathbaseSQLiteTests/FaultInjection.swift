import CPathbaseFaultVFS
import Foundation
import GRDB
import GRDBSQLite
@testable import Pathbase
@testable import PathbaseSQLite

/// The fault-injection VFS (`Tests/CPathbaseFaultVFS`) from Swift: files opened through it,
/// its faults armed, its crash and power-loss images written. Its state is global: the
/// suites that use it run their tests one at a time (`FaultSweepTests`).
enum FaultVFS {

    /// The calls a fault can hit.
    struct Calls: OptionSet, Sendable {
        let rawValue: Int32
        static let write = Calls(rawValue: Int32(PATHBASE_FAULT_WRITE))
        static let read = Calls(rawValue: Int32(PATHBASE_FAULT_READ))
        static let sync = Calls(rawValue: Int32(PATHBASE_FAULT_SYNC))
        static let truncate = Calls(rawValue: Int32(PATHBASE_FAULT_TRUNCATE))
        static let fileSize = Calls(rawValue: Int32(PATHBASE_FAULT_FILE_SIZE))
        /// The calls above, on the database, WAL and journal files: what the sweep fails.
        static let all: Calls = [.write, .read, .sync, .truncate, .fileSize]
        /// The opening of any file (SQLITE_CANTOPEN).
        static let open = Calls(rawValue: Int32(PATHBASE_FAULT_OPEN))
        /// The deletion of any file (SQLITE_IOERR_DELETE).
        static let delete = Calls(rawValue: Int32(PATHBASE_FAULT_DELETE))
        /// The database's shared-memory map and lock calls (WAL mode without exclusive locking).
        static let shm = Calls(rawValue: Int32(PATHBASE_FAULT_SHM))
        /// Any call on a sub-journal (a savepoint's journal once it outgrows memory).
        static let subjournal = Calls(rawValue: Int32(PATHBASE_FAULT_SUBJOURNAL))
    }

    /// What a failed call reports.
    enum Failure: Sendable, CustomStringConvertible {
        /// The disk is full (a write stores half, then SQLITE_FULL).
        case noSpace
        /// An I/O error (SQLITE_IOERR_*).
        case ioError

        var code: Int32 {
            switch self {
            case .noSpace: Int32(PATHBASE_FAULT_ENOSPC)
            case .ioError: Int32(PATHBASE_FAULT_EIO)
            }
        }

        var description: String {
            switch self {
            case .noSpace: "ENOSPC"
            case .ioError: "EIO"
            }
        }
    }

    /// Registers the VFS (once) and returns its name.
    static func name() throws -> String {
        let code = pathbase_fault_register()
        guard code == SQLITE_OK else { throw SQLiteDatabaseError.sqlite(code: code, message: "could not register the fault VFS") }
        return String(cString: pathbase_fault_vfs_name())
    }

    /// Forgets every file and count; call with no file open through the VFS.
    static func reset() { pathbase_fault_reset() }

    /// Fails call `index` (from 0, counted from now) of the kinds `calls`; `nil` counts only.
    /// With `persistent`, every such call from `index` on fails, until the next arming or
    /// ``reset()`` (a disk that went bad, not a single glitch).
    static func arm(_ index: Int?, calls: Calls = .all, failure: Failure = .noSpace, persistent: Bool = false) {
        pathbase_fault_arm(index ?? -1, Int32(calls.rawValue), failure.code, persistent ? 1 : 0)
    }

    /// The calls counted since the last arming.
    static var count: Int { pathbase_fault_count() }

    /// The kind of the armed fault's (first) failed call, `nil` while none has failed.
    static var fired: Calls? {
        let kind = pathbase_fault_fired()
        return kind == 0 ? nil : Calls(rawValue: kind)
    }

    /// Writes the crash image (`powerLoss` false) or the power-loss image of the database
    /// at `path` to `image` (with its `-wal` and `-journal`).
    static func writeImage(of path: String, to image: String, powerLoss: Bool) throws {
        try? FileManager.default.removeItem(atPath: image + "-shm")
        let code = pathbase_fault_image(path, image, powerLoss ? 1 : 0)
        guard code == SQLITE_OK else { throw SQLiteDatabaseError.sqlite(code: code, message: "could not write an image of \(path)") }
    }

    /// Options that open a file through the VFS, with a small page cache (so large
    /// transactions spill to the WAL), no memory mapping (every read is a call), and a WAL
    /// of 1 MiB (so the workload checkpoints).
    static func options(
        synchronization: SQLiteDatabase.Options.Synchronization = .normal,
        exclusive: Bool = false,
        errors: ErrorLog
    ) throws -> SQLiteDatabase.Options {
        var options = SQLiteDatabase.Options(
            cacheSizeInKiB: 32,
            memoryMapSizeInMiB: 0,
            walSizeInMiB: 1,
            synchronization: synchronization,
            errorHandler: errors.handler
        )
        options.vfsName = try name()
        options.exclusiveLocking = exclusive
        return options
    }
}

/// How one configuration of the sweep opens its files.
struct FaultMode: Sendable, CustomStringConvertible {
    var exclusive: Bool
    var synchronization: SQLiteDatabase.Options.Synchronization

    var description: String { "\(exclusive ? "exclusive locking" : "WAL"), synchronous \(synchronization)" }
}

/// What a workload's writes are checked by: each batch writes items (or notes) of ids no
/// other batch uses.
enum Marker: Hashable, Sendable, CustomStringConvertible {
    case item(InstanceKey)
    case note(Int)

    var description: String {
        switch self {
        case .item(let id): "item \(id)"
        case .note(let id): "note \(id)"
        }
    }
}

/// A value a batch wrote, by the object and field it went to: after a fault, every field
/// holds the value of the latest committed batch that wrote it (updates of objects other
/// batches made included), never a failed batch's.
struct Write: Hashable, Sendable, CustomStringConvertible {
    enum Field: Hashable, Sendable, CustomStringConvertible {
        case title(InstanceKey)
        case count(InstanceKey)
        case age(InstanceKey)
        case note(Int)

        var description: String {
            switch self {
            case .title(let id): "item \(id)'s title"
            case .count(let id): "item \(id)'s count"
            case .age(let id): "person \(id)'s age"
            case .note(let id): "note \(id)'s text"
            }
        }
    }

    var field: Field
    var value: String

    /// An item's title and count, as `Item.create` writes them.
    static func item(_ id: InstanceKey, title: String, count: Int) -> [Write] {
        [Write(field: .title(id), value: title), Write(field: .count(id), value: String(count))]
    }

    var description: String { "\(field) = \(value.prefix(40))" }
}

/// A struct saved through a collection in the workload.
struct FaultNote: Codable, Identifiable, Sendable {
    var id: Int
    var text: String
}

/// What a workload reported, in order.
struct WorkloadOutcome {
    /// The markers of each batch whose call returned, in commit order.
    var committed: [[Marker]] = []
    /// The markers of each batch whose call threw.
    var failed: [[Marker]] = []
    /// Markers written in a nested batch that rolled back, inside a batch that committed.
    var rolledBack: [Marker] = []
    /// What the failed batches threw.
    var thrown: [String] = []
    /// Errors thrown that are not `SQLiteDatabaseError` (there should be none).
    var untypedErrors: [String] = []
    /// The values each committed batch (by its index in ``committed``) and each failed one
    /// (by its index in ``failed``) wrote, the last of each field.
    var committedWrites: [Int: [Write]] = [:]
    var failedWrites: [Int: [Write]] = [:]
    /// Whether each batch, in the order they ran, committed (`true`) or threw.
    var sequence: [Bool] = []

    /// A batch whose call returned, with what it wrote.
    mutating func commit(_ markers: [Marker], writes: [Write]) {
        committedWrites[committed.count] = writes
        committed.append(markers)
        sequence.append(true)
    }

    /// A batch whose call threw, with what it would have written.
    mutating func fail(_ markers: [Marker], writes: [Write]) {
        failedWrites[failed.count] = writes
        failed.append(markers)
        sequence.append(false)
    }
}

/// What the check of one image found.
struct ImageCheck {
    var lost: [String] = []
    var kept: [String] = []
    var integrity: [String] = []

    var isClean: Bool { lost.isEmpty && kept.isEmpty && integrity.isEmpty }
}

extension ImageCheck {

    /// Checks the image at `path` against `outcome`.
    ///
    /// - Every committed batch is whole (`prefixOnly` false); or (`prefixOnly`, a
    ///   power-loss image with normal synchronization) the batches present are whole and
    ///   an uninterrupted prefix of the committed ones.
    /// - No marker of a rolled-back nested batch, and no marker of a failed batch, unless
    ///   `failedMayBeKept` (a sync failed at commit: the commit's frames were written, so
    ///   SQLite's recovery may find it whole) and then only whole.
    /// - `PRAGMA integrity_check` and Pathbase's own check (`pathbase check`) find nothing.
    static func of(image path: String, outcome: WorkloadOutcome, prefixOnly: Bool, failedMayBeKept: Bool) -> ImageCheck {
        var check = ImageCheck()
        let errors = ErrorLog()
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, options: .init(errorHandler: errors.handler))
        } catch {
            check.integrity.append("the image does not open: \(error)")
            return check
        }
        defer { database.close() }
        do {
            let problems = try database.checkIntegrity()
            check.integrity += problems.map { "integrity: \($0)" }
        } catch {
            check.integrity.append("integrity check failed: \(error)")
        }
        let notes = database.collection(FaultNote.self, name: "notes")
        func present(_ marker: Marker) -> Bool {
            switch marker {
            case .item(let id): database.get(id: id, of: Item.self) != nil
            case .note(let id): ((try? notes.fetch(id: id)) ?? nil) != nil
            }
        }
        var missingFrom: Int?
        for (index, batch) in outcome.committed.enumerated() {
            let found = batch.filter(present)
            if found.count == batch.count {
                if let missingFrom {
                    check.lost.append("batch \(missingFrom) of \(outcome.committed.count) is missing but batch \(index) is there")
                }
            } else if !found.isEmpty {
                check.lost.append("committed batch \(index) is partly there: \(found.count) of \(batch.count) (first missing: \(batch.first { !found.contains($0) }.map { "\($0)" } ?? "?"))")
            } else if prefixOnly {
                missingFrom = missingFrom ?? index
            } else {
                check.lost.append("committed batch \(index) (\(batch.first.map { "\($0)" } ?? "empty")…) is missing")
            }
        }
        // Every field a whole committed batch wrote holds the latest such batch's value; a
        // failed batch's value only where it may be kept whole (and is).
        func read(_ field: Write.Field) -> String? {
            switch field {
            case .title(let id): database.get(id: id, of: Item.self)?.title
            case .count(let id): database.get(id: id, of: Item.self).map { String($0.count) }
            case .age(let id): database.get(id: id, of: Person.self).map { String($0.age) }
            case .note(let id): ((try? notes.fetch(id: id)) ?? nil)?.text
            }
        }
        var latest: [Write.Field: String] = [:]
        for (index, batch) in outcome.committed.enumerated() where batch.allSatisfy(present) {
            for write in outcome.committedWrites[index] ?? [] { latest[write.field] = write.value }
        }
        var failedValues: [Write.Field: Set<String>] = [:]
        var keptWhole: [Write.Field: Set<String>] = [:]
        for (index, batch) in outcome.failed.enumerated() {
            for write in outcome.failedWrites[index] ?? [] {
                failedValues[write.field, default: []].insert(write.value)
                if failedMayBeKept, batch.allSatisfy(present) { keptWhole[write.field, default: []].insert(write.value) }
            }
        }
        for (field, value) in latest.sorted(by: { $0.key.description < $1.key.description }) {
            let found = read(field)
            guard found != value, !(found.map { keptWhole[field]?.contains($0) ?? false } ?? false) else { continue }
            if let found, failedValues[field]?.contains(found) == true {
                check.kept.append("\(field) holds \(found.prefix(40)), written by a failed batch; the latest committed value is \(value.prefix(40))")
            } else {
                check.lost.append("\(field) holds \(found.map { String($0.prefix(40)) } ?? "nothing"), not the latest committed value \(value.prefix(40))")
            }
        }
        for marker in outcome.rolledBack where present(marker) {
            check.kept.append("rolled-back \(marker) is there")
        }
        for batch in outcome.failed {
            let found = batch.filter(present)
            if !found.isEmpty, !(failedMayBeKept && found.count == batch.count) {
                check.kept.append("failed batch (\(batch.first.map { "\($0)" } ?? "empty")…): \(found.count) of \(batch.count) markers there")
            }
        }
        if !errors.errors.isEmpty {
            check.integrity.append("reading the image reported: \(errors.errors.prefix(3))")
        }
        return check
    }
}
