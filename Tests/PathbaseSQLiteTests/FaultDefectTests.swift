import Foundation
import GRDB
import GRDBSQLite
@testable import Pathbase
@testable import PathbaseSQLite
import Testing

/// The four defects of issue 44, each reproduced as its scenario (the first three through
/// the fault VFS; they were defects of the write-coalescing VFS, now removed, and must stay
/// gone whatever write path comes next). Nested in ``FaultSweepTests`` so that they run
/// one at a time with the sweep (the fault VFS's state is global).
extension FaultSweepTests {
    @Suite("SQLite under I/O faults: the defects of issue 44")
    struct Defects {

        /// A large transaction: more pages than the cache holds (so SQLite spills them to the
        /// WAL), each written again (so SQLite rewrites the spilled frames' checksums at commit:
        /// the commit's last write is a lone 24-byte frame header).
        private static func largeBatch(_ database: SQLiteDatabase, ids: Range<Int>, then body: () throws -> Void = {}) throws {
            let text = String(repeating: "spill ", count: 60)
            try database.batch {
                let created = ids.map { Item.create(in: database, id: $0, title: "\($0) \(text)", count: $0) }
                for item in created { item.title = "\(item.count) again \(text)" }
                try body()
            }
        }

        /// Opens `path` with the default VFS (not the fault VFS) and checks it.
        private static func reopened(_ path: String) throws -> (database: SQLiteDatabase, problems: [String]) {
            let database = try SQLiteDatabase(path: path, options: .init(errorHandler: { _ in }))
            return (database, try database.checkIntegrity().map(\.description))
        }

        /// A fresh file through the fault VFS with a few items (1 ... 3).
        private static func fresh(_ path: String, exclusive: Bool = false, errors: ErrorLog) throws -> SQLiteDatabase {
            let database = try SQLiteDatabase(path: path, options: FaultVFS.options(exclusive: exclusive, errors: errors))
            try database.batch {
                for id in 1 ... 3 { Item.create(in: database, id: id, title: "item \(id)", count: id) }
            }
            return database
        }

        @Test("Lone commit-frame header: the last writes of a spilled, rewritten transaction failing (ENOSPC) never lose a commit reported done", arguments: [false, true])
        func loneCommitFrameHeader(exclusive: Bool) throws {
            let directory = TemporaryDirectory()
            let errors = ErrorLog()
            // The writes of the large commit, counted in a run without fault.
            FaultVFS.reset()
            var writes = 0
            do {
                let database = try Self.fresh(directory.file("count.sqlite"), exclusive: exclusive, errors: errors)
                FaultVFS.arm(nil, calls: .write)
                try Self.largeBatch(database, ids: 1000 ..< 1160)
                writes = FaultVFS.count
                database.close()
            }
            #expect(writes > 20, "the large commit made \(writes) writes")
            var runs = 0
            // The last writes of the commit, from the end: the count can differ a little
            // from the measured run's, so go back until four faults fired (at most 40 tries).
            for last in stride(from: writes - 1, through: max(0, writes - 40), by: -1) where runs < 4 {
                let path = directory.file("run\(last).sqlite")
                let crash = directory.file("crash\(last).sqlite")
                FaultVFS.reset()
                let database = try Self.fresh(path, exclusive: exclusive, errors: errors)
                FaultVFS.arm(last, calls: .write, failure: .noSpace)
                let committed = (try? Self.largeBatch(database, ids: 1000 ..< 1160)) != nil
                let fired = FaultVFS.fired
                FaultVFS.arm(nil)
                // As a `kill -9` right after the commit returned would leave the files.
                try FaultVFS.writeImage(of: path, to: crash, powerLoss: false)
                database.close()
                FaultVFS.reset()
                if fired != nil { runs += 1 }
                for file in [crash, path] {
                    let (check, problems) = try Self.reopened(file)
                    #expect(problems.isEmpty, "\(file): \(problems)")
                    let first = check.get(id: 1000, of: Item.self) != nil
                    let last = check.get(id: 1159, of: Item.self) != nil
                    #expect(
                        first == committed && last == committed,
                        "write \(last) of \(writes) failing: reported \(committed ? "committed" : "failed"), \(file) has the first item \(first), the last \(last)")
                    #expect(check.get(id: 3, of: Item.self) != nil)
                    check.close()
                }
            }
            #expect(runs > 0)
            // And with no fault, in exclusive locking mode too: the commit is in the crash image
            // the moment it returns.
            FaultVFS.reset()
            let path = directory.file("nofault.sqlite")
            let database = try Self.fresh(path, exclusive: exclusive, errors: errors)
            try Self.largeBatch(database, ids: 1000 ..< 1160)
            try FaultVFS.writeImage(of: path, to: directory.file("nofault-crash.sqlite"), powerLoss: false)
            database.close()
            FaultVFS.reset()
            let (check, problems) = try Self.reopened(directory.file("nofault-crash.sqlite"))
            #expect(problems.isEmpty)
            #expect(check.get(id: 1159, of: Item.self)?.title.hasPrefix("1159 again") == true)
            check.close()
        }

        @Test("Flush failing inside xRead: a read failing (EIO) during a spilled transaction never publishes a damaged commit")
        func flushFailingInsideRead() throws {
            let directory = TemporaryDirectory()
            let errors = ErrorLog()
            FaultVFS.reset()
            var reads = 0
            do {
                let database = try Self.fresh(directory.file("count.sqlite"), errors: errors)
                FaultVFS.arm(nil, calls: .read)
                try Self.largeBatch(database, ids: 1000 ..< 1160)
                reads = FaultVFS.count
                database.close()
            }
            #expect(reads > 0, "the large transaction made \(reads) reads")
            var fired = 0
            for index in FaultSweepTests.spread(reads, limit: min(FaultSweepTests.runLimit, 40)) {
                let path = directory.file("run\(index).sqlite")
                let crash = directory.file("crash\(index).sqlite")
                FaultVFS.reset()
                let database = try Self.fresh(path, errors: errors)
                FaultVFS.arm(index, calls: .read, failure: .ioError)
                let committed = (try? Self.largeBatch(database, ids: 1000 ..< 1160)) != nil
                if FaultVFS.fired != nil { fired += 1 }
                FaultVFS.arm(nil)
                try FaultVFS.writeImage(of: path, to: crash, powerLoss: false)
                // The database keeps working.
                #expect((try? database.batch { Item.create(in: database, id: 90, title: "after", count: 90) }) != nil)
                database.close()
                FaultVFS.reset()
                let (check, problems) = try Self.reopened(crash)
                #expect(problems.isEmpty, "read \(index) failing: \(problems)")
                let items = (1000 ..< 1160).filter { check.get(id: $0, of: Item.self) != nil }.count
                #expect(items == (committed ? 160 : 0), "read \(index) failing: reported \(committed ? "committed" : "failed"), \(items) of 160 items in the crash image")
                check.close()
            }
            #expect(fired > 0)
        }

        @Test("Rollback flush: a rolled-back spilled transaction whose writes fail (ENOSPC) never becomes data, and the next connection's commit stays")
        func rollbackFlush() throws {
            let directory = TemporaryDirectory()
            let errors = ErrorLog()
            FaultVFS.reset()
            var writes = 0
            do {
                let database = try Self.fresh(directory.file("count.sqlite"), errors: errors)
                FaultVFS.arm(nil, calls: .write)
                _ = try? Self.largeBatch(database, ids: 1000 ..< 1160) { throw TestError() }
                writes = FaultVFS.count
                database.close()
            }
            #expect(writes > 0, "the rolled-back transaction spilled \(writes) writes")
            var fired = 0
            for index in FaultSweepTests.spread(writes, limit: min(FaultSweepTests.runLimit, 12)) {
                let path = directory.file("run\(index).sqlite")
                let crash = directory.file("crash\(index).sqlite")
                FaultVFS.reset()
                let first = try Self.fresh(path, errors: errors)
                let second = try SQLiteDatabase(path: path, options: FaultVFS.options(errors: errors))
                FaultVFS.arm(index, calls: .write, failure: .noSpace)
                // Two outcomes are right: the full disk fails a write of the batch first (diskFull),
                // or the writes fit and the body's own error ends it (TestError).
                let error = #expect(throws: (any Error).self) { try Self.largeBatch(first, ids: 1000 ..< 1160) { throw TestError() } }
                let diskFull = (error as? SQLiteDatabaseError)?.sqliteCode.map { $0 & 0xFF } == SQLITE_FULL
                #expect(error is TestError || diskFull, "\(String(describing: error))")
                if FaultVFS.fired != nil { fired += 1 }
                FaultVFS.arm(nil)
                // The other connection commits, then the first one again.
                try second.batch { Item.create(in: second, id: 60, title: "second", count: 60) }
                try first.batch { Item.create(in: first, id: 61, title: "first", count: 61) }
                try FaultVFS.writeImage(of: path, to: crash, powerLoss: false)
                // A new connection sees no rolled-back row.
                let fresh = try SQLiteDatabase(path: path, options: FaultVFS.options(errors: errors))
                #expect(fresh.get(id: 1000, of: Item.self) == nil)
                #expect(fresh.get(id: 60, of: Item.self) != nil && fresh.get(id: 61, of: Item.self) != nil)
                fresh.close()
                second.close()
                first.close()
                FaultVFS.reset()
                for file in [crash, path] {
                    let (check, problems) = try Self.reopened(file)
                    #expect(problems.isEmpty, "write \(index) failing: \(file): \(problems)")
                    #expect(check.get(id: 1000, of: Item.self) == nil && check.get(id: 1159, of: Item.self) == nil)
                    #expect(check.get(id: 60, of: Item.self)?.title == "second")
                    #expect(check.get(id: 61, of: Item.self)?.title == "first")
                    check.close()
                }
            }
            #expect(fired > 0)
        }

        @Test("A read failing (EIO) inside a batch, after which SQLite rolls the transaction back, fails the whole batch: no later write of it is stored on its own")
        func readFailureRollsBackWholeBatch() throws {
            let directory = TemporaryDirectory()
            let errors = ErrorLog()
            let text = String(repeating: "old ", count: 80)
            // A batch: items written, a history read of an early item (from the file: the
            // cache is small), items written after it.
            func body(_ database: SQLiteDatabase) {
                for id in 2000 ..< 2040 { Item.create(in: database, id: id, title: "before \(id)", count: id) }
                _ = database.records(at: Path(model: Item.modelId, instance: 1, property: 1))
                for id in 2040 ..< 2080 { Item.create(in: database, id: id, title: "after \(id)", count: id) }
            }
            func prepared(_ path: String) throws -> SQLiteDatabase {
                let database = try Self.fresh(path, errors: errors)
                try database.batch {
                    for id in 100 ..< 400 { Item.create(in: database, id: id, title: "\(id) \(text)", count: id) }
                }
                return database
            }
            FaultVFS.reset()
            var reads = 0
            do {
                let database = try prepared(directory.file("count.sqlite"))
                FaultVFS.arm(nil, calls: .read)
                try database.batch { body(database) }
                reads = FaultVFS.count
                database.close()
            }
            #expect(reads > 0, "the batch made \(reads) reads")
            var failed = 0
            for index in FaultSweepTests.spread(reads, limit: min(FaultSweepTests.runLimit, 30)) {
                let path = directory.file("run\(index).sqlite")
                FaultVFS.reset()
                let database = try prepared(path)
                FaultVFS.arm(index, calls: .read, failure: .ioError)
                let committed = (try? database.batch { body(database) }) != nil
                FaultVFS.arm(nil)
                if !committed { failed += 1 }
                database.close()
                FaultVFS.reset()
                let (check, problems) = try Self.reopened(path)
                #expect(problems.isEmpty)
                let stored = (2000 ..< 2080).filter { check.get(id: $0, of: Item.self) != nil }.count
                #expect(stored == (committed ? 80 : 0), "read \(index) failing: the batch reported \(committed ? "committed" : "failed"), \(stored) of its 80 items stored")
                check.close()
            }
            #expect(failed > 0, "no read failure failed the batch")
        }

        @Test("Damaged body: one body damaged on disk fails only the reads of its instance (a typed error); batches that read current_values inside their transaction, and pruning, still commit")
        func damagedBody() throws {
            let directory = TemporaryDirectory()
            let path = directory.file()
            let errors = ErrorLog()
            do {
                let database = try SQLiteDatabase(path: path)
                Person.create(in: database, id: 1, name: "Ada", age: 36)
                let bob = Person.create(in: database, id: 2, name: "Bob", age: 40)
                for age in 41 ... 44 { bob.age = age }
                database.close()
            }
            let queue = try rawQueue(path: path)
            // A base, then an entry of property 1 cut short: no status, a malformed name.
            try queue.write { db in
                try db.execute(sql: "UPDATE instance_values SET body = x'0000000000000000000000000204ffffffff' WHERE model = ? AND instance = 1", arguments: [Person.modelId])
            }
            try queue.close()

            let database = try SQLiteDatabase(path: path, options: .init(errorHandler: errors.handler))
            let adaName = Path(model: Person.modelId, instance: 1, property: 1)
            // A batch that reads the damaged instance's records through `current_values` (the
            // read fails, as it should), then writes other instances: it commits.
            try database.batch {
                let records = database.records(at: adaName)
                #expect(records.isEmpty)
                database.get(id: 2, of: Person.self)?.age = 45
                Item.create(in: database, id: 7, title: "written after the failed read", count: 7)
            }
            #expect(errors.errors.contains { $0.description.contains("malformed") || $0.sqliteCode == SQLITE_ERROR })
            // Pruning reads `current_values` in its write transaction; the damaged body has no
            // superseded records, so it commits, and the batch after it too.
            let cut = database.clock.now()
            do {
                try database.prune(before: cut)
            } catch is SQLiteDatabaseError {
                // Pruning reads every record's current value: it may need the damaged body. It
                // fails alone, and the database goes on.
            }
            try database.batch { Item.create(in: database, id: 8, title: "after pruning", count: 8) }
            database.close()

            let reopened = try SQLiteDatabase(path: path, options: .init(errorHandler: errors.handler))
            #expect(reopened.get(id: 2, of: Person.self)?.age == 45)
            #expect(reopened.get(id: 7, of: Item.self) != nil && reopened.get(id: 8, of: Item.self) != nil)
            // Reading the damaged instance fails with a typed error; `pathbase check` reports it.
            let damagedRead = #expect(throws: SQLiteDatabaseError.self) {
                let _: Timestamped<String>? = try reopened.fetch(adaName)
            }
            #expect(damagedRead?.sqliteCode == SQLITE_CORRUPT, "\(String(describing: damagedRead))")
            #expect(
                try reopened.checkIntegrity().map(\.description) == [
                    "instance_values \(Path(model: Person.modelId, instance: 1, property: 0)): a malformed instance body: its current values can't be read"
                ])
            reopened.close()
        }
    }
}
