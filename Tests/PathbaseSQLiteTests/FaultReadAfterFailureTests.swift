import Foundation
import GRDB
@testable import Pathbase
@testable import PathbaseSQLite
import Testing

/// Value types no other test stores: the failing batch stores the first of them first (a
/// new type id, which the failure takes back), the next batch both.
private struct Crate: Codable, Equatable, Sendable {
    var weight: Int
}

private struct Sticker: Codable, Equatable, Sendable {
    var text: String
}

/// A commit that fails (issue 67): the same `SQLiteDatabase`, not reopened, reads back the
/// last committed batch through every read path, and its next batch commits. Nested in
/// ``FaultSweepTests`` so that it runs one at a time with the sweep (the fault VFS's state
/// is global).
extension FaultSweepTests {
    @Suite("SQLite under I/O faults: reads on the connection whose commit failed")
    struct ReadAfterFailedCommit {

        /// The call that fails at commit, and how the file is opened.
        struct Case: Sendable, CustomTestStringConvertible {
            var calls: FaultVFS.Calls
            var synchronization: SQLiteDatabase.Options.Synchronization
            var exclusive: Bool

            var testDescription: String {
                "\(calls == .sync ? "sync" : "write") failing, \(exclusive ? "exclusive locking" : "WAL"), synchronous \(synchronization)"
            }
        }

        // A WAL commit syncs only with synchronous full.
        static let cases = [
            Case(calls: .sync, synchronization: .full, exclusive: false),
            Case(calls: .sync, synchronization: .full, exclusive: true),
            Case(calls: .write, synchronization: .normal, exclusive: false),
            Case(calls: .write, synchronization: .full, exclusive: true)
        ]

        private static let titlePath = Path(model: Item.modelId, instance: 1, property: 1)
        /// A path of values of types no batch stored before (a new type id each).
        private static func loosePath(_ instance: InstanceKey) -> Path { Path(model: 17, instance: instance, property: 1) }

        /// The committed batch: items 1 and 2, person 1 (age 37), a note; and reads that fill
        /// every cache the connection keeps (active instances, counts, listings, value indexes,
        /// type ids).
        private static func committedBatch(_ database: SQLiteDatabase) throws -> (item: Item, person: Person) {
            let notes = database.collection(FaultNote.self, name: "notes")
            let (item, person) = try database.batch {
                let item = Item.create(in: database, id: 1, title: "committed", count: 1)
                Item.create(in: database, id: 2, title: "second", count: 2)
                let person = Person.create(in: database, id: 1, name: "Ada", age: 37)
                try notes.save([FaultNote(id: 1, text: "committed note")])
                database.set(Address(street: "committed street", number: 1), for: loosePath(1))
                return (item, person)
            }
            _ = database.all(of: Item.self)
            _ = database.fetch(QueryDescriptor<Item>(where: \.title >= ""))
            _ = database.fetch(QueryDescriptor<Item>(where: \.count == 1))
            _ = try database.modelSummaries()
            _ = database.records(after: nil)
            _ = database.records(at: titlePath)
            _ = item.title + person.name
            return (item, person)
        }

        /// The batch whose commit fails: it changes what the committed one wrote, creates an
        /// item and stores a value of a type never stored before.
        private static func failingBatch(_ database: SQLiteDatabase, item: Item, person: Person) throws {
            let notes = database.collection(FaultNote.self, name: "notes")
            try database.batch {
                item.title = "failed"
                item.count = 100
                person.age = 99
                Item.create(in: database, id: 3, title: "failed", count: 100)
                try notes.save([FaultNote(id: 1, text: "failed note"), FaultNote(id: 2, text: "failed note")])
                database.set(Crate(weight: 100), for: loosePath(2))
                database.set(Address(street: "failed street", number: 100), for: loosePath(1))
            }
        }

        /// What the connection reads that it should not: every read path, against the
        /// committed batch's state.
        private static func readBack(_ database: SQLiteDatabase, item: Item, person: Person) throws -> [String] {
            var wrong: [String] = []
            func check(_ ok: Bool, _ what: @autoclosure () -> String) { if !ok { wrong.append(what()) } }
            // Models: the objects held across the failure, and fetched again.
            check(item.title == "committed" && item.count == 1, "the held item reads \(item.title), \(item.count)")
            check(person.age == 37, "the held person reads age \(person.age)")
            check(database.get(id: 1, of: Item.self)?.title == "committed", "get(id:) reads item 1 as \(String(describing: database.get(id: 1, of: Item.self)?.title))")
            check(database.get(id: 3, of: Item.self) == nil, "the failed batch's item 3 exists")
            check(database.all(of: Item.self).map(\.id).sorted() == [1, 2], "all(of:) lists \(database.all(of: Item.self).map(\.id))")
            // Paths.
            check(database.get(titlePath) as String? == "committed", "get(path) reads \(String(describing: database.get(titlePath) as String?))")
            let fetched: Timestamped<String>? = try database.fetch(titlePath)
            check(fetched?.value == "committed", "fetch(path) reads \(String(describing: fetched?.value))")
            check(database.get(loosePath(1)) as Address? == Address(street: "committed street", number: 1), "the committed address reads \(String(describing: database.get(loosePath(1)) as Address?))")
            check(database.get(loosePath(2)) as Crate? == nil, "the failed batch's crate is there")
            // History.
            let history = database.records(at: titlePath).compactMap { $0.value as? String }
            check(history == ["committed"], "records(at:) holds \(history)")
            let failedRecords = database.records(after: nil).filter { record in
                (record.value as? String).map { $0.hasPrefix("failed") } == true || (record.value as? Int) == 100 || (record.value as? Int) == 99
                    || record.path.instance == 3 && record.path.model == Item.modelId || record.path == loosePath(2)
            }
            check(failedRecords.isEmpty, "records(after:) holds the failed batch's \(failedRecords.map(\.path))")
            let instanceRecords = try database.records(model: Item.modelId, instance: 1).compactMap { $0.value as? String }
            check(!instanceRecords.contains("failed"), "records(model:instance:) holds \(instanceRecords)")
            // Queries (SQL, value indexes, counts).
            let listed = database.fetch(QueryDescriptor<Item>(where: \.title >= "")).map(\.id).sorted()
            check(listed == [1, 2], "a query lists \(listed)")
            let byValue = database.fetch(QueryDescriptor<Item>(where: \.count == 100)).map(\.id)
            check(byValue.isEmpty, "a query for the failed count finds \(byValue)")
            let byOld = database.fetch(QueryDescriptor<Item>(where: \.count == 1)).map(\.id)
            check(byOld == [1], "a query for the committed count finds \(byOld)")
            let created = try database.modelSummaries().first { $0.model == Item.modelId }?.created
            check(created == 2, "modelSummaries counts \(String(describing: created)) items")
            // The collection.
            let notes = database.collection(FaultNote.self, name: "notes")
            check(try notes.fetch(id: 1)?.text == "committed note", "note 1 reads \(String(describing: try? notes.fetch(id: 1)?.text))")
            check(try notes.fetch(id: 2) == nil, "the failed batch's note 2 is there")
            return wrong
        }

        @Test("After a commit fails, the same connection reads the last committed batch through models, get, records and queries, and its next batch commits", arguments: cases)
        func readsAfterFailedCommit(_ test: Case) throws {
            let directory = TemporaryDirectory()
            let errors = ErrorLog()
            let options = try FaultVFS.options(synchronization: test.synchronization, exclusive: test.exclusive, errors: errors)
            // The failing batch's calls of the kind, counted in a run without fault.
            FaultVFS.reset()
            var calls = 0
            do {
                let database = try SQLiteDatabase(path: directory.file("count.sqlite"), options: options)
                let (item, person) = try Self.committedBatch(database)
                FaultVFS.arm(nil, calls: test.calls)
                try Self.failingBatch(database, item: item, person: person)
                calls = FaultVFS.count
                database.close()
            }
            #expect(calls > 0, "the batch made \(calls) calls")
            var failed = 0
            for (position, index) in FaultSweepTests.spread(calls, limit: 6).enumerated() {
                let failure: FaultVFS.Failure = position % 2 == 0 ? .noSpace : .ioError
                let context = "call \(index) of \(calls) failing (\(failure))"
                let path = directory.file("run\(index).sqlite")
                FaultVFS.reset()
                let database = try SQLiteDatabase(path: path, options: options)
                let (item, person) = try Self.committedBatch(database)
                FaultVFS.arm(index, calls: test.calls, failure: failure)
                let error = #expect(throws: (any Error).self, "\(context): the batch committed") {
                    try Self.failingBatch(database, item: item, person: person)
                }
                #expect(error == nil || error is SQLiteDatabaseError, "\(context): \(String(describing: error))")
                let fired = FaultVFS.fired != nil
                FaultVFS.arm(nil)
                #expect(fired, "\(context): the fault did not fire")
                if error != nil { failed += 1 }
                for wrong in try Self.readBack(database, item: item, person: person) { Issue.record("\(context): \(wrong)") }
                // The next batch commits, and reads back.
                try database.batch {
                    item.title = "after"
                    Item.create(in: database, id: 4, title: "after", count: 4)
                    database.set(Sticker(text: "after"), for: Self.loosePath(3))
                    database.set(Crate(weight: 5), for: Self.loosePath(5))
                    database.set(Address(street: "after street", number: 4), for: Self.loosePath(4))
                }
                #expect(database.get(id: 1, of: Item.self)?.title == "after" && item.title == "after", "\(context)")
                #expect(database.fetch(QueryDescriptor<Item>(where: \.title >= "")).map(\.id).sorted() == [1, 2, 4], "\(context)")
                database.close()
                FaultVFS.reset()
                // Opened again: the committed batches, nothing of the failed one.
                let reopened = try SQLiteDatabase(path: path, options: .init(errorHandler: { _ in }))
                #expect(try reopened.checkIntegrity().isEmpty, "\(context)")
                #expect(reopened.get(id: 1, of: Item.self)?.title == "after" && reopened.get(id: 1, of: Item.self)?.count == 1, "\(context)")
                #expect(reopened.get(id: 3, of: Item.self) == nil && reopened.get(id: 4, of: Item.self) != nil, "\(context)")
                #expect(reopened.get(id: 1, of: Person.self)?.age == 37, "\(context)")
                #expect(reopened.get(Self.loosePath(1)) as Address? == Address(street: "committed street", number: 1), "\(context)")
                #expect(reopened.get(Self.loosePath(2)) as Crate? == nil, "\(context)")
                #expect(reopened.get(Self.loosePath(3)) as Sticker? == Sticker(text: "after"), "\(context)")
                #expect(reopened.get(Self.loosePath(5)) as Crate? == Crate(weight: 5), "\(context)")
                #expect(reopened.get(Self.loosePath(4)) as Address? == Address(street: "after street", number: 4), "\(context)")
                reopened.close()
            }
            #expect(failed > 0)
        }
    }
}
