import Foundation
import GRDB
@testable import Pathbase
@testable import PathbaseSQLite
import Testing

/// A sub-journal failing (issue 67): a nested batch that rewrites more than SQLite keeps of a
/// savepoint's journal in memory (64 KiB), so its journal is a file, then rolls back. Nested
/// in ``FaultSweepTests`` so that it runs one at a time with the sweep (the fault VFS's state
/// is global).
extension FaultSweepTests {
    @Suite("SQLite under I/O faults: sub-journals")
    struct Subjournal {

        private static let text = String(repeating: "journal ", count: 60)

        /// A file through the fault VFS with 160 large items, committed.
        private static func prepared(_ path: String, errors: ErrorLog) throws -> SQLiteDatabase {
            let database = try SQLiteDatabase(path: path, options: FaultVFS.options(errors: errors))
            try database.batch {
                for id in 1000 ..< 1160 { Item.create(in: database, id: id, title: "\(id) \(text)", count: id) }
            }
            return database
        }

        /// An outer batch: an item, a nested batch that rewrites every large item and throws,
        /// another item.
        private static func batch(_ database: SQLiteDatabase) throws {
            try database.batch {
                Item.create(in: database, id: 1, title: "before", count: 1)
                do {
                    try database.batch {
                        for id in 1000 ..< 1160 { database.get(id: id, of: Item.self)?.title = "rewritten \(id) \(text)" }
                        throw TestError()
                    }
                } catch is TestError {}
                Item.create(in: database, id: 2, title: "after", count: 2)
            }
        }

        /// What is wrong with the committed state as `database` reads it: the large items
        /// unchanged, items 1 and 2 there exactly if the batch committed.
        private static func wrong(_ database: SQLiteDatabase, committed: Bool) -> [String] {
            var wrong: [String] = []
            let rewritten = (1000 ..< 1160).filter { database.get(id: $0, of: Item.self)?.title != "\($0) \(text)" }
            if !rewritten.isEmpty { wrong.append("\(rewritten.count) large items do not hold their committed title (first \(rewritten[0]))") }
            let outer = [1, 2].filter { database.get(id: $0, of: Item.self) != nil }
            if outer.count != (committed ? 2 : 0) { wrong.append("the batch \(committed ? "committed" : "failed"); of its items \(outer) are there") }
            return wrong
        }

        @Test("Each call on a sub-journal failing in turn: the batch commits whole or fails with a typed error, nothing committed is lost, the connection reads the committed state and writes again")
        func subjournalCallsFail() throws {
            let directory = TemporaryDirectory()
            let errors = ErrorLog()
            FaultVFS.reset()
            var calls = 0
            do {
                let database = try Self.prepared(directory.file("count.sqlite"), errors: errors)
                FaultVFS.arm(nil, calls: .subjournal)
                try Self.batch(database)
                calls = FaultVFS.count
                #expect(Self.wrong(database, committed: true).isEmpty)
                database.close()
            }
            #expect(calls > 10, "the nested batch made \(calls) calls on its sub-journal")
            var fired = 0
            var failed = 0
            for (position, index) in FaultSweepTests.spread(calls, limit: 12).enumerated() {
                let failure: FaultVFS.Failure = position % 2 == 0 ? .noSpace : .ioError
                let context = "sub-journal call \(index) of \(calls) failing (\(failure))"
                let path = directory.file("run\(index).sqlite")
                FaultVFS.reset()
                let database = try Self.prepared(path, errors: errors)
                FaultVFS.arm(index, calls: .subjournal, failure: failure)
                var committed = true
                do {
                    try Self.batch(database)
                } catch {
                    committed = false
                    #expect(error is SQLiteDatabaseError, "\(context): \(error)")
                }
                if FaultVFS.fired != nil { fired += 1 }
                if !committed { failed += 1 }
                FaultVFS.arm(nil)
                for problem in Self.wrong(database, committed: committed) { Issue.record("\(context), same connection: \(problem)") }
                #expect((try? database.batch { Item.create(in: database, id: 3, title: "next", count: 3) }) != nil, "\(context): the next batch failed")
                database.close()
                FaultVFS.reset()
                let reopened = try SQLiteDatabase(path: path, options: .init(errorHandler: { _ in }))
                #expect(try reopened.checkIntegrity().isEmpty, "\(context)")
                for problem in Self.wrong(reopened, committed: committed) { Issue.record("\(context), reopened: \(problem)") }
                #expect(reopened.get(id: 3, of: Item.self)?.title == "next", "\(context)")
                reopened.close()
            }
            #expect(fired > 0)
            #expect(failed > 0, "no sub-journal failure failed the batch")
        }
    }
}
