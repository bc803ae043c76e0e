import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Suite("StateModel compatibility: getEncodedHistory(until:) and insert(records:)")
struct EncodedHistoryTests {

    /// History as StateModel's `getEncodedHistory()` writes it: `JSONEncoder` output of its
    /// records, each `[[model, instance, property], seconds since 1970, value JSON as base64]`,
    /// with `/` escaped as `JSONEncoder` does by default. Model 3700 is `Ticket`, 3701
    /// `Assignee`; property 0 holds the status (1 created, 2 deleted).
    static let stateModelHistory = #"""
        [[[3701,9,0],1700000000.125,"MQ=="],[[3701,9,1],1700000000.25,"IkFkYSI="],\#
        [[3700,1,0],1700000000.5,"MQ=="],[[3700,1,1],1700000001,"IkxvZ2luIGZhaWxzIg=="],\#
        [[3700,1,2],1700000002.75,"Mw=="],[[3700,1,3],1700000003,"OQ=="],[[3700,1,4],1700000004,"Wzld"],\#
        [[3700,1,1],1700000005,"Iml0J3Mgb2s\/Ig=="],[[3700,2,0],1700000006,"MQ=="],[[3700,2,0],1700000007,"Mg=="]]
        """#

    /// The same shape produced by `JSONEncoder` from values, as StateModel encodes its records.
    struct StateModelRecord: Encodable {
        let path: [Int]
        let seconds: Double
        let value: Data

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(path)
            try container.encode(seconds)
            try container.encode(value)
        }
    }

    @available(*, deprecated)
    @Test("History written by StateModel is read by insert(records:), values typed by the models")
    func readsStateModelHistory() throws {
        ModelRegistry.shared.register(Ticket.self, Assignee.self)
        let database = InMemoryHistoryDatabase()
        #expect(database.insert(records: Data(Self.stateModelHistory.utf8)))
        try Self.expectImportedTickets(in: database)
    }

    @Test("importRecords(from:) (and so `pathbase import`) reads StateModel history into an SQLite file")
    func importsIntoSQLite() throws {
        ModelRegistry.shared.register(Ticket.self, Assignee.self)
        let database = try SQLiteDatabase()
        try database.importRecords(from: Data(Self.stateModelHistory.utf8))
        try Self.expectImportedTickets(in: database)
        // Stored with the models' types: native values the SQL filters see.
        let records = database.records(at: Path(model: Ticket.modelId, instance: 1, property: Ticket.PropertyId.estimate))
        #expect(records.first?.value as? Int == 3)
    }

    static func expectImportedTickets(in database: any HistoryDatabase) throws {
        let ticket = try #require(database.get(id: 1, of: Ticket.self))
        #expect(ticket.status == .created)
        #expect(ticket.title == "it's ok?")
        #expect(ticket.estimate == 3)
        #expect(ticket.assignee?.name == "Ada")
        #expect(ticket.watchers.map(\.id) == [9])
        #expect(database.get(id: 2, of: Ticket.self)?.status == .deleted)
        #expect(database.all(of: Ticket.self).map(\.id) == [1])
        // Timestamps keep the time of each write, to the microsecond.
        let titles = database.history(of: ticket.path(of: .title), as: String.self)
        #expect(titles.map(\.value) == ["Login fails", "it's ok?"])
        #expect(titles.map(\.timestamp.time) == [1_700_000_001_000_000, 1_700_000_005_000_000])
        let estimate: Timestamped<Int>? = database.get(ticket.path(of: .estimate), at: nil)
        #expect(estimate?.timestamp == Timestamp(time: 1_700_000_002_750_000))
    }

    @available(*, deprecated)
    @Test("Records encoded with JSONEncoder in StateModel's shape read the same")
    func jsonEncoderShape() throws {
        let records = [
            StateModelRecord(path: [3700, 5, 0], seconds: 1_700_000_000.5, value: Data("1".utf8)),
            StateModelRecord(path: [3700, 5, 1], seconds: 1_700_000_001.5, value: try JSONEncoder().encode("Encoded/with JSONEncoder")),
            StateModelRecord(path: [3700, 5, 2], seconds: 1_700_000_002.5, value: try JSONEncoder().encode(8))
        ]
        let database = InMemoryHistoryDatabase()
        #expect(database.insert(records: try JSONEncoder().encode(records)))
        let ticket = try #require(database.get(id: 5, of: Ticket.self))
        #expect(ticket.title == "Encoded/with JSONEncoder")
        #expect(ticket.estimate == 8)
    }

    @Test("Values of models this process does not know decode when read")
    func unknownModels() throws {
        let history = #"[[[3719,1,0],1700000000,"MQ=="],[[3719,1,1],1700000001,"eyJhIjpbMSwyXX0="]]"#
        let database = InMemoryHistoryDatabase()
        try database.importRecords(from: Data(history.utf8))
        let value: [String: [Int]]? = database.get(Path(model: 3719, instance: 1, property: 1))
        #expect(value == ["a": [1, 2]])
        let status: InstanceStatus? = database.get(.status(model: 3719, instance: 1))
        #expect(status == .created)
    }

    @available(*, deprecated)
    @Test(
        "Malformed history inserts nothing and returns false; importRecords throws the case",
        arguments: [
            (#"[[[3700,1,0],1700000000,"MQ=="],[[3700,1,1],1700000001"#, "malformed"), // truncated
            (#"[[[3700,1,0],1700000000,"MQ=="],[[3700,1,1],1700000001,"!!"]]"#, "malformed"), // not base64
            (#"[[[3700,1,0],1700000000,"MQ=="],[[3700,1,0],1700000001,"Nw=="]]"#, "invalidValue"), // status 7
            (#"[[[3700,1,0],1700000000,"MQ=="],[[3700,1,1],1700000001,"e30s"]]"#, "invalidValue"), // value "{}," is no JSON
            (#"[[[3700,1,0],1e300,"MQ=="]]"#, "malformed"), // time out of range
            (#"{"format":"pathbase-records","version":99,"records":[]}"#, "newerVersion") // a newer Pathbase document
        ])
    func malformed(history: String, expectedCase: String) throws {
        let database = InMemoryHistoryDatabase()
        let ticket = Ticket.create(in: database, id: 1, title: "Kept")
        let before = database.records().count
        #expect(!database.insert(records: Data(history.utf8)))
        #expect(database.records().count == before)
        #expect(ticket.title == "Kept")
        let error = #expect(throws: RecordArchiveError.self) { try database.importRecords(from: Data(history.utf8)) }
        #expect(errorCase(of: error) == expectedCase, "\(String(describing: error))")
    }

    @available(*, deprecated)
    @Test("getEncodedHistory() moves a whole history between Pathbase databases")
    func roundTrip() throws {
        let source = InMemoryHistoryDatabase()
        let ticket = Ticket.create(in: source, id: 1, title: "First")
        ticket.title = "Second"
        ticket.assignee = Assignee.create(in: source, id: 2, name: "Ada")

        let data = source.getEncodedHistory()
        for target in [InMemoryHistoryDatabase() as any HistoryDatabase, try SQLiteDatabase()] {
            #expect(target.insert(records: data))
            let copy = try #require(target.get(id: 1, of: Ticket.self))
            #expect(copy.title == "Second")
            #expect(copy.assignee?.name == "Ada")
            #expect(target.records().map(\.timestamp) == source.records().map(\.timestamp))
        }
    }

    @available(*, deprecated)
    @Test("getEncodedHistory(until:) holds only the records written after the date")
    func untilDate() throws {
        let source = InMemoryHistoryDatabase()
        let ticket = Ticket.create(in: source, id: 1, title: "Old")
        let cut = Date(timeIntervalSince1970: Double(source.clock.now().time) / 1_000_000 + 0.01)
        // Writes stamped after the cut.
        source.set("New", for: ticket.path(of: .title), timestamp: Timestamp(latestAt: cut.addingTimeInterval(1)))

        let target = InMemoryHistoryDatabase()
        #expect(target.insert(records: source.getEncodedHistory(until: cut)))
        #expect(target.records().count == 1)
        let title: String? = target.get(ticket.path(of: .title))
        #expect(title == "New")
    }
}

@Suite("StateModel compatibility: getEncodedHistory on InMemoryDatabase")
struct InMemoryEncodedHistoryTests {

    @available(*, deprecated)
    @Test("An InMemoryDatabase exports its current values, which other databases insert")
    func snapshot() throws {
        let source = InMemoryDatabase()
        let ticket = Ticket.create(in: source, id: 1, title: "Snapshot", estimate: 2)
        ticket.watchers = [Assignee.create(in: source, id: 9, name: "Ada")]
        let data = source.getEncodedHistory()
        for target in [InMemoryDatabase() as any Database, InMemoryHistoryDatabase(), try SQLiteDatabase()] {
            #expect(target.insert(records: data))
            let copy = try #require(target.get(id: 1, of: Ticket.self))
            #expect(copy.title == "Snapshot")
            #expect(copy.estimate == 2)
            #expect(copy.watchers.map(\.name) == ["Ada"])
        }
    }

    @Test("Imported into a history database, the snapshot never replaces a value written there")
    func snapshotIsOldest() throws {
        let source = InMemoryDatabase()
        Ticket.create(in: source, id: 1, title: "From the snapshot")
        let target = InMemoryHistoryDatabase()
        Ticket.create(in: target, id: 1, title: "Written here")
        try target.importRecords(from: try source.exportRecords())
        #expect(target.get(id: 1, of: Ticket.self)?.title == "Written here")
    }

    @available(*, deprecated)
    @Test("Without history, the changes after a date are all current values: called without try, as in StateModel")
    func untilDate() throws {
        let source = InMemoryDatabase()
        Ticket.create(in: source, id: 1, title: "Undated")
        let data = source.getEncodedHistory(until: Date())
        let target = InMemoryHistoryDatabase()
        #expect(target.insert(records: data))
        #expect(target.get(id: 1, of: Ticket.self)?.title == "Undated")
    }
}
