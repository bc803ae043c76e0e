import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

/// Two history databases and the two sides of an exchange between them: the consumer
/// pulls from the producer.
struct SyncPair {
    let producerDatabase: any HistoryDatabase
    let consumerDatabase: any HistoryDatabase
    let producer: RequestProcessor
    let consumer: UpdateConsumer

    init(
        _ coding: SyncCoding = .json,
        producer producerDatabase: any HistoryDatabase = InMemoryHistoryDatabase(),
        consumer consumerDatabase: any HistoryDatabase = InMemoryHistoryDatabase(),
        consumerMap: @escaping (ModelKey) -> (any ModelProtocol.Type)? = syncModelMap
    ) {
        self.producerDatabase = producerDatabase
        self.consumerDatabase = consumerDatabase
        producer = RequestProcessor(database: producerDatabase, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
        consumer = UpdateConsumer(database: consumerDatabase, encoder: coding.encoder, decoder: coding.decoder, modelMap: consumerMap)
    }

    /// Pulls every model update after `cursor`, page by page; returns each page's result.
    @discardableResult
    func pullModel<Model: ModelProtocol>(_ model: Model.Type, after cursor: SyncCursor? = nil, limit: Int = 100) throws -> [SyncResult] {
        var results: [SyncResult] = []
        var page: SyncCursor? = nil
        repeat {
            let request = try consumer.modelUpdateRequest(for: model, after: cursor, limit: limit, startingAt: page)
            let result = try consumer.apply(modelUpdate: try producer.process(modelUpdateRequest: request))
            results.append(result)
            page = result.nextPage
            if results.count > 10_000 { break } // a paging bug must not hang the tests
        } while page != nil
        return results
    }

    /// Pulls the instance statuses of a model after `cursor`.
    @discardableResult
    func pullStatuses<Model: ModelProtocol>(_ model: Model.Type, after cursor: SyncCursor? = nil) throws -> SyncResult {
        let request = try consumer.instanceStatusRequest(for: model, after: cursor)
        return try consumer.apply(instanceUpdates: try producer.process(instanceStatusRequest: request))
    }

    /// Pulls the records of one instance after `cursor`.
    @discardableResult
    func pullInstance<Model: ModelProtocol>(_ instance: InstanceKey, of model: Model.Type, after cursor: SyncCursor? = nil) throws -> SyncResult {
        let request = try consumer.instanceUpdateRequest(for: instance, of: model, after: cursor)
        return try consumer.apply(instanceUpdate: try producer.process(instanceUpdateRequest: request))
    }
}

/// Every record of a database (or of one model), as text: equal snapshots mean equal
/// histories and equal current values.
func snapshot(_ database: any HistoryDatabase, model: ModelKey? = nil) -> [String] {
    database.records(after: nil, limit: nil)
        .filter { record in model.map { record.path.model == $0 } ?? true }
        .map { "\($0.path) @ \($0.timestamp): \(String(reflecting: $0.value))" }
}

/// Every record of a database, each path's current record as the database answers it, and
/// every instance status, as text: what a rejected payload must leave exactly as it was.
func fullSnapshot(_ database: any HistoryDatabase) -> [String] {
    let records = database.records(after: nil, limit: nil)
    let paths = Set(records.map(\.path)).sorted { "\($0)" < "\($1)" }
    let current = paths.map { path in
        let latest = database.latestRecord(at: path)
        return "current \(path) @ \(latest.map { "\($0.timestamp)" } ?? "-"): \(String(reflecting: latest?.value))"
    }
    let statuses = Set(records.map(\.path.model)).sorted().flatMap { model in
        database.all(model: model) { instance, status in "status \(model)/\(instance): \(status)" }.sorted()
    }
    return snapshot(database) + current + statuses
}

/// A timestamp in the past, for records whose order a test controls.
func stamp(_ microsecond: Int64, counter: UInt32 = 0, replica: UInt32 = 1) -> Timestamp {
    Timestamp(time: 1_700_000_000_000_000 + microsecond, counter: counter, replica: replica)
}

/// The error response a `RequestProcessor` would send, decoded by a consumer.
func remoteError(_ response: Data, consumer: UpdateConsumer) -> SyncError? {
    do {
        try consumer.apply(data: response)
        return nil
    } catch {
        return error
    }
}

/// Pulls every record of `collection` from `producer` into `consumer`, page by page, through
/// the sync messages.
func pullCollection<Element>(_ collection: CodableCollection<Element>, from producer: any Database, into consumer: any Database) throws {
    let model = collection.modelKey
    let map: (ModelKey) -> (any ModelProtocol.Type)? = { $0 == model ? CollectionSyncModel.self : nil }
    let updates = UpdateConsumer(database: consumer, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: map)
    let processor = RequestProcessor(database: producer, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: map)
    var page: SyncCursor?
    var rounds = 0
    repeat {
        let request = try updates.modelUpdateRequest(for: collection, limit: 100, startingAt: page)
        page = try updates.apply(modelUpdate: processor.process(request: request)).nextPage
        rounds += 1
    } while page != nil && rounds < 100
}

/// Checks that `body` throws the `SyncError` case named `expectedCase` ("unexpectedMessage",
/// "malformedMessage", …): the case a function promises, not just any sync error.
func expectSyncError(_ expectedCase: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    let error = #expect(throws: SyncError.self, comment, sourceLocation: sourceLocation, performing: body)
    #expect(errorCase(of: error) == expectedCase, "\(String(describing: error))", sourceLocation: sourceLocation)
}
