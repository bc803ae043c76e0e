import Foundation
import Pathbase

/// A stand-in for a sync server in the engine's unit tests: a log of records with sequence
/// numbers, stored once per key, with rejections and lost responses on demand. The real
/// server (`PathbaseServer`) has its own tests; as it does, the stand-in acknowledges a
/// record whose key it holds only when the value is the same, and rejects another value
/// under that key (`SyncServer`'s `.conflicting`), so an engine that re-stamps nothing and
/// re-pushes another value under an old timestamp fails here too.
final class ReplicaTestTransport: SyncTransport, @unchecked Sendable {
    // @unchecked: every mutable property is touched only while holding `lock`.

    struct LostResponse: Error {}

    private let lock = NSLock()
    private var log: [SyncRecord] = []
    private var pushSizes: [Int] = []
    private var rejection: (@Sendable (SyncRecord) -> String?) = { _ in nil }
    private var loseResponses = 0
    private var failPulls: Set<Int64> = []

    /// Every record stored, in sequence order.
    var records: [SyncRecord] { lock.withLock { log } }

    /// The number of records of each push request received.
    var pushRequestSizes: [Int] { lock.withLock { pushSizes } }

    /// Refuses the records for which `reason` returns a reason.
    func reject(_ reason: @escaping @Sendable (SyncRecord) -> String?) { lock.withLock { rejection = reason } }

    /// Stores the next `count` pushes but throws instead of answering.
    func loseNextResponses(_ count: Int) { lock.withLock { loseResponses = count } }

    /// Throws for pulls after these cursors.
    func failPulls(after cursors: Set<Int64>) { lock.withLock { failPulls = cursors } }

    /// Stores a record written elsewhere, as another replica's push would; returns `false`
    /// (storing nothing) when the log holds its key already, whatever the value.
    @discardableResult
    func store(_ record: SyncRecord) -> Bool {
        lock.withLock {
            guard !log.contains(where: { $0.key == record.key }) else { return false }
            log.append(record)
            return true
        }
    }

    func push(_ request: PushRequest) async throws -> PushResponse {
        try lock.withLock {
            pushSizes.append(request.records.count)
            var response = PushResponse(acknowledged: [])
            for record in request.records {
                if let reason = rejection(record) {
                    response.rejected.append(.init(key: record.key, reason: reason))
                    continue
                }
                if let stored = log.first(where: { $0.key == record.key }) {
                    // SyncServer's `.conflicting`: the same key with another value is refused.
                    guard stored == record else {
                        response.rejected.append(
                            .init(key: record.key, reason: "The server holds another value with the same path and timestamp (\(record.key)); timestamps must be unique per write"))
                        continue
                    }
                } else {
                    log.append(record)
                }
                response.acknowledged.append(record.key)
            }
            if loseResponses > 0 {
                loseResponses -= 1
                throw LostResponse()
            }
            return response
        }
    }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        try lock.withLock {
            if failPulls.contains(request.after) { throw LostResponse() }
            let start = Int(request.after)
            let page = Array(log.dropFirst(start).prefix(request.limit))
            let cursor = request.after + Int64(page.count)
            return PullResponse(records: page, cursor: cursor, hasMore: cursor < Int64(log.count))
        }
    }
}
