import Foundation
import Pathbase
import Testing

/// `process(request:)` and `apply(data:)` route every kind of message to its handler, and
/// the functions for one kind refuse the others.
@Suite("Sync: routing requests and responses")
struct SyncRoutingTests {

    private func filledPair(_ coding: SyncCoding) -> SyncPair {
        let pair = SyncPair(coding)
        _ = SyncItem.create(in: pair.producerDatabase, id: 1, title: "Routed", count: 2)
        _ = Package.create(in: pair.producerDatabase, id: 1, name: "tool")
        return pair
    }

    @Test("An instance status request through process(request:) is answered with statuses", arguments: SyncCoding.allCases)
    func statusRequest(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        let response = pair.producer.process(request: try pair.consumer.instanceStatusRequest(for: SyncItem.self))
        #expect(try kind(of: response, coding) == "instanceStatuses")
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(instanceUpdate: response) }
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(modelUpdate: response) }
        let result = try pair.consumer.apply(instanceUpdates: response)
        #expect(result.instances == [1])
        #expect(pair.consumerDatabase.get(id: 1, of: SyncItem.self)?.title == "") // statuses only
    }

    @Test("An instance update request through process(request:) is answered with that instance's records", arguments: SyncCoding.allCases)
    func instanceUpdateRequest(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        let response = pair.producer.process(request: try pair.consumer.instanceUpdateRequest(for: 1, of: SyncItem.self))
        #expect(try kind(of: response, coding) == "instanceUpdate")
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(instanceUpdates: response) }
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(modelUpdate: response) }
        try pair.consumer.apply(instanceUpdate: response)
        #expect(pair.consumerDatabase.get(id: 1, of: SyncItem.self)?.title == "Routed")
    }

    @Test("A model update request through process(request:) is answered with a page of the model", arguments: SyncCoding.allCases)
    func modelUpdateRequest(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        let response = pair.producer.process(request: try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 2))
        #expect(try kind(of: response, coding) == "modelUpdate")
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(instanceUpdates: response) }
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(instanceUpdate: response) }
        let result = try pair.consumer.apply(modelUpdate: response)
        #expect(result.appliedRecords == 2)
        #expect(!result.isComplete)
    }

    @Test("A command through process(request:) runs and is confirmed", arguments: SyncCoding.allCases)
    func command(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        let package = Package(database: pair.consumerDatabase, id: 1)
        let response = pair.producer.process(request: try package.installCommand(version: "2.0").encoded(using: coding.encoder))
        #expect(try kind(of: response, coding) == "commandDone")
        let result = try pair.consumer.apply(data: response)
        #expect(result.instances == [1])
        #expect(pair.producerDatabase.get(id: 1, of: Package.self)?.installed == ["2.0"])
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(modelUpdate: response) }
    }

    @Test("The same requests through the functions for their kind give the same answers", arguments: SyncCoding.allCases)
    func specificAndGenericAgree(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        let requests = [
            try pair.consumer.instanceStatusRequest(for: SyncItem.self),
            try pair.consumer.instanceUpdateRequest(for: 1, of: SyncItem.self),
            try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 10)
        ]
        let specific = [
            try pair.producer.process(instanceStatusRequest: requests[0]),
            try pair.producer.process(instanceUpdateRequest: requests[1]),
            try pair.producer.process(modelUpdateRequest: requests[2])
        ]
        #expect(requests.map(pair.producer.process(request:)) == specific)
    }

    @Test("The functions for one kind of request refuse every other kind", arguments: SyncCoding.allCases)
    func specificRefuseOthers(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        let status = try pair.consumer.instanceStatusRequest(for: SyncItem.self)
        let instance = try pair.consumer.instanceUpdateRequest(for: 1, of: SyncItem.self)
        let model = try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 10)
        let command = try Package(database: pair.consumerDatabase, id: 1).installCommand(version: "1").encoded(using: coding.encoder)
        let processor = pair.producer
        let handlers: [(Data) throws -> Data] = [
            processor.process(instanceStatusRequest:),
            processor.process(instanceUpdateRequest:),
            processor.process(modelUpdateRequest:),
            processor.process(command:)
        ]
        let requests = [status, instance, model, command]
        for (handlerIndex, handler) in handlers.enumerated() {
            for (requestIndex, request) in requests.enumerated() where requestIndex != handlerIndex {
                expectSyncError("unexpectedMessage", "handler \(handlerIndex), request \(requestIndex)") { _ = try handler(request) }
            }
        }
        #expect(pair.producerDatabase.get(id: 1, of: Package.self)?.installed == [])
    }

    @Test("A response sent to process(request:) and a request sent to apply(data:) are refused", arguments: SyncCoding.allCases)
    func wrongDirection(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        let request = try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 10)
        let response = pair.producer.process(request: request)
        let refused = remoteError(pair.producer.process(request: response), consumer: pair.consumer)
        guard case .unexpectedMessage(let kind, _) = refused else {
            Issue.record("expected unexpectedMessage, got \(String(describing: refused))")
            return
        }
        #expect(kind == "modelUpdate")
        expectSyncError("unexpectedMessage") { _ = try pair.consumer.apply(data: request) }
        #expect(snapshot(pair.consumerDatabase).isEmpty)
    }

    @Test("Another version or an unknown kind is refused before the body is read")
    func versionAndKind() throws {
        let pair = filledPair(.json)
        let newer = Data(#"{"version":2,"kind":"modelUpdateRequest","body":"anything"}"#.utf8)
        #expect(remoteError(pair.producer.process(request: newer), consumer: pair.consumer) == .unsupportedVersion(2))
        let unknown = Data(#"{"version":1,"kind":"deleteEverything","body":{}}"#.utf8)
        #expect(remoteError(pair.producer.process(request: unknown), consumer: pair.consumer) == .unknownMessageKind("deleteEverything"))
        #expect(throws: SyncError.unsupportedVersion(2)) { try pair.consumer.apply(data: newer) }
    }

    @Test("Unknown models and instances get typed error responses", arguments: SyncCoding.allCases)
    func unknownModelAndInstance(coding: SyncCoding) throws {
        let pair = filledPair(coding)
        // The consumer knows a model the producer does not serve.
        let producer = RequestProcessor(database: pair.producerDatabase, encoder: coding.encoder, decoder: coding.decoder) { _ in nil }
        let request = try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 5)
        #expect(remoteError(producer.process(request: request), consumer: pair.consumer) == .unknownModel(SyncItem.modelId))
        #expect(throws: SyncError.unknownModel(SyncItem.modelId)) { try producer.process(modelUpdateRequest: request) }

        let missing = try pair.consumer.instanceUpdateRequest(for: 99, of: SyncItem.self)
        #expect(remoteError(pair.producer.process(request: missing), consumer: pair.consumer) == .unknownInstance(model: SyncItem.modelId, instance: 99))

        // And the consumer refuses to ask for models it cannot decode.
        let blind = UpdateConsumer(database: InMemoryHistoryDatabase(), encoder: coding.encoder, decoder: coding.decoder) { _ in nil }
        #expect(throws: SyncError.unknownModel(SyncItem.modelId)) {
            try blind.instanceStatusRequest(for: SyncItem.self)
        }
        #expect(throws: SyncError.unknownModel(SyncItem.modelId)) {
            try blind.apply(data: pair.producer.process(request: try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 5)))
        }
    }

    @Test("Every error survives the trip as an error response", arguments: SyncCoding.allCases)
    func errorResponses(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let errors: [SyncError] = [
            .malformedMessage("bad"), .unsupportedVersion(9), .unknownMessageKind("x"),
            .unexpectedMessage(kind: "a", expected: "b"), .unknownModel(1), .unknownInstance(model: 1, instance: 2),
            .unknownCommand(model: 1, command: 3), .undecodableArguments(model: 1, command: 2, reason: "r"),
            .commandFailed(model: 1, command: 2, reason: "r"), .invalidLimit(0),
            .timestampTooFarAhead(stamp(1)), .historyRequired(database: "D"), .encodingFailed("e"), .storageFailed("s")
        ]
        for error in errors {
            #expect(remoteError(pair.producer.errorResponse(error), consumer: pair.consumer) == error)
            #expect(!error.description.isEmpty)
        }
    }

    @Test("Messages are readable JSON: version, kind, and values as their own types")
    func jsonShape() throws {
        let pair = filledPair(.json)
        let response = pair.producer.process(request: try pair.consumer.instanceUpdateRequest(for: 1, of: SyncItem.self))
        let object = try #require(try JSONSerialization.jsonObject(with: response) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["kind"] as? String == "instanceUpdate")
        let body = try #require(object["body"] as? [String: Any])
        let records = try #require(body["records"] as? [[String: Any]])
        #expect(records.contains { $0["value"] as? String == "Routed" })
        #expect(records.contains { $0["value"] as? Int == 2 })
    }

    private func kind(of data: Data, _ coding: SyncCoding) throws -> String? {
        struct Envelope: Decodable { var kind: String }
        return try coding.decoder.decode(Envelope.self, from: data).kind
    }
}
