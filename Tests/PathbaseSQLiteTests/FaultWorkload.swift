import Foundation
import GRDB
@testable import Pathbase
@testable import PathbaseSQLite

/// The write paths of `SQLiteDatabase`, run against a file opened through the fault VFS:
/// the upgrade of a format 7 file (on opening), batches of object writes, one large
/// transaction that spills to the WAL and changes its pages again, a nested batch that rolls
/// back while its outer batch goes on, a collection save, two connections writing in turn
/// (not in exclusive locking mode, where one connection holds the file), pruning (and its
/// `VACUUM`), checkpoints (automatic, with a WAL of 1 MiB, and on closing).
///
/// Every failure is recorded, never fatal: after a fault the workload goes on, and what
/// each batch reported is checked against the file's images afterwards.
final class FaultWorkload {

    let path: String
    let mode: FaultMode
    let errors = ErrorLog()
    private(set) var outcome = WorkloadOutcome()
    /// Connections open at the end (closed by ``close()``).
    private var open: [SQLiteDatabase] = []

    init(path: String, mode: FaultMode) {
        self.path = path
        self.mode = mode
    }

    /// A format 7 file of Ada and Bob at `path`: what every run starts from (written
    /// through the default VFS, before anything is armed).
    static func makeTemplate(at path: String) throws {
        try createAdaAndBob(at: path)
        let queue = try rawQueue(path: path)
        try queue.write { db in _ = try downgradeToFormatSeven(db) }
        try queue.close()
    }

    private func connect() -> SQLiteDatabase? {
        do {
            let database = try SQLiteDatabase(path: path, options: FaultVFS.options(synchronization: mode.synchronization, exclusive: mode.exclusive, errors: errors))
            open.append(database)
            return database
        } catch is SQLiteDatabaseError {
            return nil
        } catch {
            outcome.untypedErrors.append("opening: \(error)")
            return nil
        }
    }

    /// Opens a connection; after a failed opening, tries once more (the fault fires once).
    private func connectAgain() -> SQLiteDatabase? {
        connect() ?? connect()
    }

    /// Runs `body` as one batch, which writes `markers` and the values `body` returns.
    private func batch(_ database: SQLiteDatabase, _ markers: [Marker], _ body: () throws -> [Write]) {
        var writes: [Write] = []
        do {
            try database.batch { writes = try body() }
            outcome.commit(markers, writes: writes)
        } catch let error as SQLiteDatabaseError {
            outcome.fail(markers, writes: writes)
            outcome.thrown.append("\(markers.first.map { "\($0)" } ?? "batch"): \(error)")
        } catch {
            outcome.fail(markers, writes: writes)
            outcome.untypedErrors.append("\(markers.first.map { "\($0)" } ?? "batch"): \(error)")
        }
    }

    private func items(_ ids: some Sequence<InstanceKey>) -> [Marker] { ids.map { .item($0) } }

    /// Runs every step; returns `false` if the database could not be opened at all.
    @discardableResult
    func run() -> Bool {
        guard var first = connectAgain() else { return false }
        // Batches of object writes.
        for round in 1 ... 3 {
            let ids = [round * 10, round * 10 + 1]
            batch(first, items(ids)) {
                for id in ids { Item.create(in: first, id: id, title: "item \(id)", count: id) }
                first.get(id: 1, of: Person.self)?.age = 36 + round
                return ids.flatMap { Write.item($0, title: "item \($0)", count: $0) } + [Write(field: .age(1), value: String(36 + round))]
            }
        }
        // One large transaction: more pages than the cache holds, written twice.
        let large = Array(1000 ..< 1160)
        let text = String(repeating: "spill ", count: 60)
        batch(first, items(large)) {
            let created = large.map { Item.create(in: first, id: $0, title: "\($0) \(text)", count: $0) }
            for item in created { item.title = "\(item.count) again \(text)" }
            return large.flatMap { Write.item($0, title: "\($0) again \(text)", count: $0) }
        }
        // A nested batch that rolls back; its outer batch goes on and commits.
        do {
            var outerFailed = false
            do {
                try first.batch {
                    Item.create(in: first, id: 50, title: "outer before", count: 50)
                    do {
                        try first.batch {
                            Item.create(in: first, id: 51, title: "rolled back", count: 51)
                            throw TestError()
                        }
                    } catch is TestError {}
                    Item.create(in: first, id: 52, title: "outer after", count: 52)
                }
            } catch {
                outerFailed = true
                if !(error is SQLiteDatabaseError) { outcome.untypedErrors.append("nested: \(error)") }
            }
            let outer = Write.item(50, title: "outer before", count: 50) + Write.item(52, title: "outer after", count: 52)
            if outerFailed {
                outcome.fail(items([50, 51, 52]), writes: outer)
            } else {
                outcome.commit(items([50, 52]), writes: outer)
                outcome.rolledBack.append(.item(51))
            }
        }
        // A collection save: one batch of its own.
        let notes = first.collection(FaultNote.self, name: "notes")
        do {
            try notes.save((1 ... 5).map { FaultNote(id: $0, text: "note \($0)") })
            outcome.commit((1 ... 5).map { .note($0) }, writes: (1 ... 5).map { Write(field: .note($0), value: "note \($0)") })
        } catch {
            outcome.fail((1 ... 5).map { .note($0) }, writes: (1 ... 5).map { Write(field: .note($0), value: "note \($0)") })
            outcome.thrown.append("notes: \(error)")
            if !(error is SQLiteDatabaseError) { outcome.untypedErrors.append("collection: \(error)") }
        }
        // Two connections writing in turn.
        if !mode.exclusive, let second = connectAgain() {
            batch(second, items([60, 61])) {
                for id in [60, 61] { Item.create(in: second, id: id, title: "second \(id)", count: id) }
                return [60, 61].flatMap { Write.item($0, title: "second \($0)", count: $0) }
            }
            batch(first, items([62])) {
                Item.create(in: first, id: 62, title: "first 62", count: 62)
                return Write.item(62, title: "first 62", count: 62)
            }
            batch(second, items([63])) {
                Item.create(in: second, id: 63, title: "second 63", count: 63)
                return Write.item(63, title: "second 63", count: 63)
            }
        }
        // Pruning (a transaction, then VACUUM), then a batch after it.
        let cut = first.clock.now()
        batch(first, items([64])) {
            // An update of an item an earlier batch made (when that batch committed).
            var writes = Write.item(64, title: "64", count: 64)
            if let ten = first.get(id: 10, of: Item.self) {
                ten.title = "after the cut"
                writes.append(Write(field: .title(10), value: "after the cut"))
            }
            Item.create(in: first, id: 64, title: "64", count: 64)
            return writes
        }
        do {
            try first.prune(before: cut)
        } catch {
            if !(error is SQLiteDatabaseError) { outcome.untypedErrors.append("prune: \(error)") }
        }
        batch(first, items([65])) {
            Item.create(in: first, id: 65, title: "after pruning", count: 65)
            return Write.item(65, title: "after pruning", count: 65)
        }
        // A checkpoint on closing, then a batch on the file opened again.
        first.close()
        open.removeAll { $0 === first }
        guard let reopened = connectAgain() else { return true }
        first = reopened
        batch(first, items([70, 71])) {
            for id in [70, 71] { Item.create(in: first, id: id, title: "reopened \(id)", count: id) }
            return [70, 71].flatMap { Write.item($0, title: "reopened \($0)", count: $0) }
        }
        return true
    }

    /// One more batch on an open connection (or a new one): whether the database still
    /// takes writes after the fault.
    func keepsWorking() -> Bool {
        guard let database = open.last ?? connectAgain() else { return false }
        do {
            try database.batch { Item.create(in: database, id: 90, title: "after the fault", count: 90) }
            return true
        } catch {
            if !(error is SQLiteDatabaseError) { outcome.untypedErrors.append("keeps working: \(error)") }
            // A second try: the fault fired once.
            return (try? database.batch { Item.create(in: database, id: 91, title: "after the fault", count: 91) }) != nil
        }
    }

    func close() {
        for database in open { database.close() }
        open.removeAll()
    }
}
