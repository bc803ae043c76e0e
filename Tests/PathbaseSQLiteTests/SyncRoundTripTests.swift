import Foundation
import Pathbase
import PathbaseSQLite
import Testing

// Model ids 40–49 in this target.

@Model(id: 40)
final class SyncedTask {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var done: Bool

    @Property(id: 3)
    var estimate: Double? = 1.5

    @Reference(id: 4)
    var assignee: SyncedPerson?

    @ReferenceList(id: 5)
    var watchers: [SyncedPerson]

    @Property(id: 6)
    var attachment: Data

    @Command(id: 7)
    func complete(note: String?) {
        done = true
        title += note.map { " (\($0))" } ?? ""
    }
}

@Model(id: 41)
final class SyncedPerson {
    @Property(id: 1)
    var name: String
}

private func syncedModels(_ model: ModelKey) -> (any ModelProtocol.Type)? {
    switch model {
    case SyncedTask.modelId: return SyncedTask.self
    case SyncedPerson.modelId: return SyncedPerson.self
    default: return nil
    }
}

/// Every record of a database as text. Optionals are unwrapped: SQLite hands back a
/// stored `Int?` as the `Int` it keeps.
/// The records of the models' data; the files' catalogs of model descriptions, which the
/// seed's per-model requests don't carry, are left out.
private func snapshot(_ database: any HistoryDatabase) -> [String] {
    func describe(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return String(reflecting: value) }
        return mirror.children.first.map { describe($0.value) } ?? "nil"
    }
    return database.records(after: nil, limit: nil).filter { $0.path.model != ModelDescription.catalogModel }.map { "\($0.path) @ \($0.timestamp): \(describe($0.value))" }
}

/// Synchronization between two `SQLiteDatabase`s, and between SQLite and memory.
@Suite("Sync between SQLite databases")
struct SyncRoundTripTests {

    private enum Coding: String, CaseIterable, CustomStringConvertible {
        case json, propertyList
        var encoder: any DataEncoder { self == .json ? JSONEncoder() : PropertyListEncoder() }
        var decoder: any DataDecoder { self == .json ? JSONDecoder() : PropertyListDecoder() }
        var description: String { rawValue }
    }

    private func fill(_ database: any Database) -> SyncedTask {
        let ann = SyncedPerson.create(in: database, id: 1, name: "Ann")
        let bob = SyncedPerson.create(in: database, id: 2, name: "Bob")
        let task = SyncedTask.create(in: database, id: 1, title: "Write", estimate: nil, assignee: ann, watchers: [ann, bob], attachment: Data([0, 1, 2]))
        task.title = "Write tests"
        SyncedTask.create(in: database, id: 2, title: "Gone").delete()
        bob.delete()
        return task
    }

    /// Pulls every update of a model, page by page.
    private func pull<Model: ModelProtocol>(_ model: Model.Type, into consumer: UpdateConsumer, from producer: RequestProcessor, after cursor: SyncCursor? = nil, limit: Int = 3) throws -> SyncResult?
    {
        var page: SyncCursor? = nil
        var last: SyncResult?
        repeat {
            let request = try consumer.modelUpdateRequest(for: model, after: cursor, limit: limit, startingAt: page)
            last = try consumer.apply(modelUpdate: producer.process(request: request))
            page = last?.nextPage
        } while page != nil
        return last
    }

    @Test("Two SQLite files: model updates, statuses, references and lists arrive intact", arguments: [Coding.json, .propertyList])
    private func sqliteToSQLite(coding: Coding) throws {
        let directory = TemporaryDirectory()
        let remote = try SQLiteDatabase(path: directory.file("remote.sqlite"))
        let local = try SQLiteDatabase(path: directory.file("local.sqlite"))
        _ = fill(remote)
        let producer = RequestProcessor(database: remote, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncedModels)
        let consumer = UpdateConsumer(database: local, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncedModels)

        let statuses = try consumer.apply(instanceUpdates: producer.process(instanceStatusRequest: consumer.instanceStatusRequest(for: SyncedTask.self)))
        #expect(statuses.instances == [1, 2])
        #expect(local.get(id: 2, of: SyncedTask.self)?.status == .deleted)

        let cursor = try pull(SyncedTask.self, into: consumer, from: producer)?.cursor
        _ = try pull(SyncedPerson.self, into: consumer, from: producer)
        #expect(snapshot(local) == snapshot(remote))

        let task = try #require(local.get(id: 1, of: SyncedTask.self))
        #expect(task.title == "Write tests")
        #expect(task.estimate == nil)
        #expect(task.assignee?.name == "Ann")
        #expect(task.watchers.map(\.name) == ["Ann", "Bob"])
        #expect(task.watchers.map(\.status) == [.created, .deleted])
        #expect(task.attachment == Data([0, 1, 2]))
        #expect(task.history(of: .title, as: String.self).map(\.value) == ["Write", "Write tests"])

        // Later changes only, after the cursor; applying again changes nothing.
        let remoteTask = try #require(remote.get(id: 1, of: SyncedTask.self))
        remoteTask.done = true
        remoteTask.assignee = nil
        let request = try consumer.instanceUpdateRequest(for: 1, of: SyncedTask.self, after: cursor)
        let response = try producer.process(instanceUpdateRequest: request)
        #expect(try consumer.apply(instanceUpdate: response).appliedRecords == 2)
        let before = snapshot(local)
        try consumer.apply(instanceUpdate: response)
        #expect(snapshot(local) == before)
        #expect(task.done)
        #expect(task.assignee == nil)
    }

    @Test("Newest wins on SQLite: an older received value stays history")
    func newestWins() throws {
        let remote = try SQLiteDatabase()
        let local = try SQLiteDatabase()
        let path = Path(model: SyncedTask.modelId, instance: 1, property: SyncedTask.PropertyId.title.rawValue)
        remote.set(InstanceStatus.created, for: .status(model: SyncedTask.modelId, instance: 1), timestamp: Timestamp(time: 1_000))
        remote.set("remote", for: path, timestamp: Timestamp(time: 2_000, replica: 1))
        local.set("local", for: path, timestamp: Timestamp(time: 3_000, replica: 2))
        let producer = RequestProcessor(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        let consumer = UpdateConsumer(database: local, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        _ = try pull(SyncedTask.self, into: consumer, from: producer, limit: 1)
        let value: String? = local.get(path)
        #expect(value == "local")
        #expect(local.history(of: path, as: String.self).map(\.value) == ["remote", "local"])
    }

    @Test("Same-millisecond writes on SQLite are not skipped by the next request")
    func sameMillisecond() throws {
        let remote = try SQLiteDatabase()
        let local = InMemoryHistoryDatabase()
        let producer = RequestProcessor(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        let consumer = UpdateConsumer(database: local, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        let path = Path(model: SyncedTask.modelId, instance: 1, property: SyncedTask.PropertyId.title.rawValue)
        remote.set("a", for: path, timestamp: Timestamp(time: 5_000, counter: 0, replica: 1))
        let cursor = try pull(SyncedTask.self, into: consumer, from: producer)?.cursor
        remote.set("b", for: path, timestamp: Timestamp(time: 5_000, counter: 1, replica: 1))
        remote.set("c", for: path.with(instance: 2), timestamp: Timestamp(time: 5_000, counter: 1, replica: 1))
        let result = try pull(SyncedTask.self, into: consumer, from: producer, after: cursor, limit: 1)
        #expect(result?.isComplete == true)
        #expect(snapshot(local) == snapshot(remote))
    }

    @Test("SQLite to memory and back converge")
    func sqliteAndMemory() throws {
        let disk = try SQLiteDatabase()
        let memory = InMemoryHistoryDatabase()
        let task = fill(disk)
        let toMemory = UpdateConsumer(database: memory, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        let fromDisk = RequestProcessor(database: disk, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        let toDisk = UpdateConsumer(database: disk, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        let fromMemory = RequestProcessor(database: memory, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncedModels)
        _ = try pull(SyncedTask.self, into: toMemory, from: fromDisk)
        _ = try pull(SyncedPerson.self, into: toMemory, from: fromDisk)
        let copy = try #require(memory.get(id: 1, of: SyncedTask.self))
        copy.title = "Edited in memory"
        task.done = true
        _ = try pull(SyncedTask.self, into: toDisk, from: fromMemory)
        _ = try pull(SyncedTask.self, into: toMemory, from: fromDisk)
        #expect(task.title == "Edited in memory")
        #expect(copy.done)
        #expect(snapshot(disk) == snapshot(memory))
    }

    @Test("Commands run on an SQLite database")
    func commands() throws {
        let remote = try SQLiteDatabase()
        _ = SyncedTask.create(in: remote, id: 3, title: "Ship")
        let local = SyncedTask(database: InMemoryDatabase(), id: 3)
        let client = StateClient(database: remote, encoder: PropertyListEncoder(), decoder: PropertyListDecoder(), modelMap: syncedModels)
        try client.run(command: local.completeCommand(note: "today").encoded(using: PropertyListEncoder()))
        let task = try #require(remote.get(id: 3, of: SyncedTask.self))
        #expect(task.done)
        #expect(task.title == "Ship (today)")
        #expect(throws: SyncError.unknownInstance(model: SyncedTask.modelId, instance: 4)) {
            try client.run(command: SyncedTask(database: remote, id: 4).completeCommand(note: nil).encoded(using: PropertyListEncoder()))
        }
    }
}

private extension Path {
    func with(instance: InstanceKey) -> Path {
        Path(model: model, instance: instance, property: property)
    }
}
