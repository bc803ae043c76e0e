// swift-format-ignore-file
import Foundation
import PathbaseSQLite
import Testing

// The Swift examples of MIGRATING.md, verbatim between the markers (MarkdownSnippetTests
// checks it), compiled and run by the tests below. Model ids 3720–3729. What StateModel code
// uses deprecated names is marked deprecated, so that this target builds without warnings.

// BEGIN MARKDOWN SNIPPETS
import Pathbase // was: import StateModel

enum Mood: Int, Codable, Sendable {
    case calm, happy, tense
}

@available(*, deprecated)
extension Mood: Defaultable {
    static let `default` = Mood.calm // warning: Pathbase names it 'defaultValue'
}

enum Weather: Int, Codable, Sendable {
    case sunny, rainy
}

extension Weather: Defaultable {
    static let defaultValue = Weather.sunny
}

@available(*, deprecated)
@Model(id: 3720)
final class Note {
    @Property(id: 1)
    var text: String

    @Property(id: 2)
    var mood: Mood // Mood.calm until a value is stored

    @Property(id: 3)
    var pinned: Bool

    @ReferenceList(id: 4)
    var related: [Note]

    @Command(id: 5)
    func pin() {
        pinned = true
    }
}

@Model(id: 3721)
final class Trip {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var start: Date = .distantPast

    @ReferenceList(id: 3)
    var stops: [Stop]
}

@Model(id: 3722)
final class Stop {
    @Property(id: 1)
    var place: String
}

@available(*, deprecated)
final class DiaryDatabase: HistoryDatabase { // warnings name the Timestamp-based requirements
    private var values: [Path: [(date: Date, value: Any)]] = [:]

    func get<Value: DatabaseValue>(_ path: Path, at date: Date?) -> Timestamped<Value>? {
        let written = values[path, default: []].filter { $0.date <= date ?? .distantFuture }
        guard let entry = written.last, let value = entry.value as? Value else { return nil }
        return Timestamped(value: value, date: entry.date)
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path, at date: Date?) {
        values[path, default: []].append((date ?? Date(), value))
        values[path]?.sort { $0.date < $1.date }
    }

    func all<T>(model: ModelKey, at date: Date?, where predicate: (InstanceKey, InstanceStatus, Date) -> T?) -> [T] {
        values.keys.filter { $0.model == model && $0.property == PropertyKey.instanceId }.compactMap { path in
            let status: Timestamped<InstanceStatus>? = get(path, at: date)
            return status.flatMap { predicate(path.instance, $0.value, $0.date) }
        }
    }
}

@available(*, deprecated)
final class DictionaryCache: DatabaseCache { // warnings name value(at:as:), store(_:for:), ...
    private var values: [Path: Any] = [:]

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        values[path] as? Value
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        values[path] = value
    }
}

@available(*, deprecated)
func mapNoteModels(_ model: ModelKey) -> (any ModelProtocol.Type)? {
    model == Note.modelId ? Note.self : nil
}

@available(*, deprecated)
enum MigratingExamples {

    static func pathFromPropertyId(_ database: InMemoryHistoryDatabase) {
        let path = Path(model: Note.modelId, instance: 1, property: Note.PropertyId.text)
        database.set("Written by path", for: path)
    }

    static func cachedHistory() -> (CachedDatabase<InMemoryHistoryDatabase>, CachedDatabase<InMemoryHistoryDatabase>) {
        let cached = CachedHistoryDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 1000))
        let same = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 1000)) // the Pathbase spelling
        return (cached, same)
    }

    static func changedBehindTheWrapper() -> Note {
        let base = InMemoryHistoryDatabase()
        let observed = ObservableDatabase(wrapping: base)
        let note = Note.create(in: observed, id: 1, text: "Draft")
        base.set("Changed behind the wrapper", for: note.path(of: .text))
        observed.updateChangedObject(model: Note.modelId, instance: note.id)
        return note
    }

    static func stateModelTransfer(from source: InMemoryHistoryDatabase, to target: any Database, lastTransfer: Date) -> Bool {
        let data = source.getEncodedHistory(until: lastTransfer) // Pathbase: exportRecords(after:)
        let inserted = target.insert(records: data)                  // Pathbase: importRecords(from:)
        return inserted
    }

    static func pathbaseTransfer(from source: InMemoryHistoryDatabase, to target: any Database, lastTransfer: Date) throws {
        let backup = try source.exportRecords(after: Timestamp(latestAt: lastTransfer))
        try target.importRecords(from: backup)
    }

    static func unencodedSync(server: InMemoryHistoryDatabase, client: InMemoryHistoryDatabase) throws -> SyncResult {
        let processor = UnencodedRequestProcessor(database: server, modelMap: mapNoteModels)
        let consumer = UnencodedUpdateConsumer(database: client, modelMap: mapNoteModels)

        let request = try consumer.modelUpdateRequest(for: Note.self, limit: 100)
        let response = try processor.process(modelUpdateRequest: request)
        let result = try consumer.apply(modelUpdate: response)
        print(result.appliedRecords, result.nextPage == nil)
        return result
    }

    static func command(note: Note, client: InMemoryHistoryDatabase, producer: RequestProcessor) throws {
        let consumer = UpdateConsumer(database: client, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapNoteModels)
        let request = try consumer.encode(command: note.pinCommand())
        let response = producer.process(request: request) // on the side that runs it
        try consumer.decode(commandResponse: response)      // throws what failed there
    }

    static func stateModelPaging(consumer: UpdateConsumer, producer: RequestProcessor, lastSyncTime: Date) throws {
        var next: InstanceKey? = nil
        repeat {
            let request = try consumer.modelUpdateRequest(for: Note.self, after: lastSyncTime, limit: 100, startingAt: next)
            let response = try producer.process(modelUpdateRequest: request)
            next = try consumer.apply(modelUpdates: response)
        } while next != nil
    }

    static func pathbasePaging(consumer: UpdateConsumer, producer: RequestProcessor) throws {
        var page: SyncCursor? = nil
        repeat {
            let request = try consumer.modelUpdateRequest(for: Note.self, limit: 100, startingAt: page)
            page = try consumer.apply(modelUpdate: try producer.process(modelUpdateRequest: request)).nextPage
        } while page != nil
    }

    static func diaryHistory() -> Note? {
        let diary = DiaryDatabase()
        let morning = Date(timeIntervalSinceNow: -12 * 3600)
        diary.set(InstanceStatus.created, for: .status(model: Note.modelId, instance: 1), at: morning)
        diary.set("Morning", for: Path(model: Note.modelId, instance: 1, property: Note.PropertyId.text), at: morning)
        let entry = diary.get(id: 1, of: Note.self)
        entry?.text = "Evening" // now
        let past = diary.view(at: morning).get(id: 1, of: Note.self)
        return past
    }

    static func ownCaches() -> (CachedDatabase<InMemoryHistoryDatabase>, CachedDatabase<InMemoryDatabase>, InMemoryHistoryDatabase) {
        let cached = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: DictionaryCache())
        let counted = CachedDatabase(wrapping: InMemoryDatabase(), cache: MaximumCountCache(maxCount: 1000, evictionFraction: 0.2))
        let wrapped = cached.database // Pathbase: cached.base
        return (cached, counted, wrapped)
    }

    static func resort(_ database: InMemoryHistoryDatabase) -> [Note] {
        var notes = database.all(of: Note.self).sorted { $0.text < $1.text }
        notes[0].text = "Zebra"
        notes.resortElement(at: 0) { $0.text < $1.text }
        return notes
    }

    static func importStateModelHistory(databasePath: String, historyFile: URL) throws -> SQLiteDatabase {
        ModelRegistry.shared.register(Note.self) // values are stored with the models' types
        let database = try SQLiteDatabase(path: databasePath)
        try database.importRecords(from: Data(contentsOf: historyFile))
        return database
    }
}

enum SwiftDataExamples {

    static func contexts(databasePath: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: databasePath)
        let trip = Trip.create(in: database, id: 1, name: "Lisbon", start: Date())

        let context = database.createEditingContext()
        let draft: Trip? = context.get(id: trip.id)
        draft?.name = "Lisbon and Porto"
        context.commitChanges() // or discardChanges()
        return database
    }

    static func predicates(_ database: SQLiteDatabase) -> (trips: [Trip], long: [Trip], live: LiveQuery<Trip>) {
        let descriptor = QueryDescriptor<Trip>(where: .hasPrefix(\.name, "L"), sortBy: \.start)
        let trips = database.fetch(descriptor)
        let long = QueryDescriptor<Trip>(filter: { $0.stops.count > 3 }, sortBy: { $0.start })

        let observed = ObservableDatabase(wrapping: database)
        let live = LiveQuery(descriptor, in: observed)
        print(live.results.map(\.name))
        return (trips, database.fetch(long), live)
    }
}
// END MARKDOWN SNIPPETS

@Suite("MIGRATING.md examples")
struct MigratingExampleTests {

    /// A temporary directory for the files of one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-migrating-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @available(*, deprecated)
    @Test("Defaults in both spellings, and a path from a PropertyId case")
    func defaultsAndPaths() {
        let database = InMemoryHistoryDatabase()
        let note = Note.create(in: database, id: 1)
        #expect(note.mood == .calm)
        #expect(Weather.default == .sunny)
        MigratingExamples.pathFromPropertyId(database)
        #expect(note.text == "Written by path")
    }

    @available(*, deprecated)
    @Test("The cache, the observers, resorting")
    func cacheObserversResort() {
        let (cached, same) = MigratingExamples.cachedHistory()
        #expect(type(of: cached) == type(of: same))
        #expect(MigratingExamples.changedBehindTheWrapper().text == "Changed behind the wrapper")

        let database = InMemoryHistoryDatabase()
        for (id, text) in [(1, "Apple"), (2, "Mango"), (3, "Pear")] {
            Note.create(in: database, id: id, text: text)
        }
        #expect(MigratingExamples.resort(database).map(\.text) == ["Mango", "Pear", "Zebra"])
    }

    @available(*, deprecated)
    @Test("History moves between databases both ways")
    func transfers() throws {
        let source = InMemoryHistoryDatabase()
        Note.create(in: source, id: 1, text: "Moved")
        for useStateModelNames in [true, false] {
            let target = try SQLiteDatabase()
            if useStateModelNames {
                #expect(MigratingExamples.stateModelTransfer(from: source, to: target, lastTransfer: .distantPast))
            } else {
                try MigratingExamples.pathbaseTransfer(from: source, to: target, lastTransfer: .distantPast)
            }
            #expect(target.get(id: 1, of: Note.self)?.text == "Moved")
        }
    }

    @available(*, deprecated)
    @Test("Synchronization as values, and a command through the consumer")
    func syncAndCommands() throws {
        let server = InMemoryHistoryDatabase()
        let client = InMemoryHistoryDatabase()
        Note.create(in: server, id: 1, text: "Synced")
        let result = try MigratingExamples.unencodedSync(server: server, client: client)
        #expect(result.nextPage == nil)
        let note = try #require(client.get(id: 1, of: Note.self))
        #expect(note.text == "Synced")

        let producer = RequestProcessor(database: server, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapNoteModels)
        try MigratingExamples.command(note: note, client: client, producer: producer)
        #expect(server.get(id: 1, of: Note.self)?.pinned == true)
    }

    @available(*, deprecated)
    @Test("Paging through a model's updates, both ways, to the last page")
    func paging() throws {
        let server = InMemoryHistoryDatabase()
        for id in 1...250 {
            Note.create(in: server, id: id, text: "Note \(id)")
        }
        for useStateModelNames in [true, false] {
            let client = InMemoryHistoryDatabase()
            let consumer = UpdateConsumer(database: client, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapNoteModels)
            let producer = RequestProcessor(database: server, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapNoteModels)
            if useStateModelNames {
                try MigratingExamples.stateModelPaging(consumer: consumer, producer: producer, lastSyncTime: Date(timeIntervalSince1970: 0))
            } else {
                try MigratingExamples.pathbasePaging(consumer: consumer, producer: producer)
            }
            #expect(client.all(of: Note.self).count == 250)
            #expect(client.get(id: 250, of: Note.self)?.text == "Note 250")
        }
    }

    @available(*, deprecated)
    @Test("A history database and a cache of one's own, written for StateModel")
    func ownDatabaseAndCache() {
        #expect(MigratingExamples.diaryHistory()?.text == "Morning")
        let (cached, counted, wrapped) = MigratingExamples.ownCaches()
        let note = Note.create(in: cached, id: 1, text: "Cached")
        note.text = "Changed"
        #expect(note.text == "Changed")
        #expect(wrapped.get(id: 1, of: Note.self)?.text == "Changed")
        #expect(Note.create(in: counted, id: 2, text: "Counted").text == "Counted")
    }

    @available(*, deprecated)
    @Test("StateModel history in a file is imported into an SQLite file")
    func importFile() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let historyFile = directory.appendingPathComponent("history.json")
        // As StateModel writes it: Note 1 created, its text "Imported", its mood 1 (happy).
        try Data(#"[[[3720,1,0],1700000000,"MQ=="],[[3720,1,1],1700000001,"IkltcG9ydGVkIg=="],[[3720,1,2],1700000002,"MQ=="]]"#.utf8).write(to: historyFile)
        let database = try MigratingExamples.importStateModelHistory(databasePath: directory.appendingPathComponent("notes.sqlite").path, historyFile: historyFile)
        let note = try #require(database.get(id: 1, of: Note.self))
        #expect(note.text == "Imported")
        #expect(note.mood == .happy)
    }

    @Test("SwiftData's context, predicate and query, the Pathbase way")
    func swiftData() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SwiftDataExamples.contexts(databasePath: directory.appendingPathComponent("trips.sqlite").path)
        #expect(database.get(id: 1, of: Trip.self)?.name == "Lisbon and Porto")
        Trip.create(in: database, id: 2, name: "Berlin")
        let (trips, long, live) = SwiftDataExamples.predicates(database)
        #expect(trips.map(\.id) == [1])
        #expect(long.isEmpty)
        #expect(live.results.map(\.id) == [1])
    }
}
