import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Two processes syncing one file (issue 60, item 5): a push stores the server's answers
/// in a batch, and the rejected records the file keeps are one list in it. A push that read
/// that list before its batch and wrote it back whole would undo what another connection
/// changed in it meanwhile: a rejection the user discarded there would come back.
@Suite("Replica: two connections changing one file's rejected records keep each other's changes")
struct OutboxExceptionsRaceTests {

    /// An SQLite database that runs `interleave` once, as the first batch after
    /// ``arm(_:)`` begins: between a push's answer and the batch that stores it, where
    /// another process's push can land.
    private final class InterleavingDatabase: DatabaseWrapper, HistoryDatabase, BatchDatabase, @unchecked Sendable {
        // @unchecked: the only mutable state is in `armed`, a lock.
        let base: SQLiteDatabase
        private let armed = Locked<(@Sendable () -> Void)?>(nil)

        init(wrapping base: SQLiteDatabase) { self.base = base }

        func arm(_ interleave: @escaping @Sendable () -> Void) { armed.withLock { $0 = interleave } }

        func batch<Result>(_ body: () throws -> Result) throws -> Result {
            if let interleave = armed.withLock({ $0.take() }) { interleave() }
            return try base.batch(body)
        }
    }

    /// Arms the database after push number `armedPush` is answered, so that the other
    /// connection's change runs between that answer and the batch that stores it.
    private struct ArmingTransport: SyncTransport {
        let base: ReplicaTestTransport
        let database: InterleavingDatabase
        let armedPush: Int
        let interleave: @Sendable () -> Void
        let pushes = Locked(0)

        func push(_ request: PushRequest) async throws -> PushResponse {
            let response = try await base.push(request)
            let count = pushes.withLock { count in
                count += 1
                return count
            }
            if count == armedPush { database.arm(interleave) }
            return response
        }

        func pull(_ request: PullRequest) async throws -> PullResponse { try await base.pull(request) }
    }

    /// The other process's replica, used only from the interleaving closure, while the
    /// first connection's push waits for it.
    private struct OtherProcess: @unchecked Sendable {
        // @unchecked: one closure uses it, once, while nothing else does.
        let replica: Replica
    }

    private static func path(_ instance: Int) -> Path { Path(model: 2170, instance: instance, property: 1) }

    @Test("a rejection discarded by another connection while a push is answered stays discarded; the push's own rejection is listed")
    func discardMeanwhileIsKept() async throws {
        let file = SQLiteTestFiles.newPath()
        let server = ReplicaTestTransport()
        server.reject { record in record.path.instance != 3 ? "the value is larger than the server accepts" : nil }
        let first = InterleavingDatabase(wrapping: try SQLiteDatabase(path: file))
        let other = OtherProcess(replica: try Replica(database: try SQLiteDatabase(path: file), transport: server))
        first.set("too large", for: Self.path(1))
        let discarded = try #require(first.base.latestRecord(at: Self.path(1))).syncKey
        let discardedMeanwhile = Locked<String?>(nil)
        let replica = try Replica(
            database: first,
            transport: ArmingTransport(base: server, database: first, armedPush: 2) {
                do {
                    try other.replica.discard(discarded)
                    discardedMeanwhile.withLock { $0 = "discarded" }
                } catch {
                    discardedMeanwhile.withLock { $0 = "\(error)" }
                }
            })
        try await replica.push()
        #expect(replica.rejectedRecords().map(\.key) == [discarded], "the first push is rejected")

        // The second push brings a record the server takes and one it refuses; the other
        // connection discards the first rejection while the answers are on their way.
        first.set("fits", for: Self.path(3))
        first.set("too large as well", for: Self.path(2))
        let kept = try #require(first.base.latestRecord(at: Self.path(2))).syncKey
        try await replica.push()

        #expect(discardedMeanwhile.withLock { $0 } == "discarded", "the other connection did not discard, so the race was not run")
        // Read through a connection of its own too, as a third process would.
        let reader = try Replica(database: try SQLiteDatabase(path: file), transport: server)
        for observer in [replica, reader] {
            #expect(observer.rejectedRecords().map(\.key) == [kept], "rejected records listed: \(observer.rejectedRecords())")
            #expect(observer.state(of: discarded) != .rejected(reason: "the value is larger than the server accepts"))
        }
        #expect(server.records.map(\.path) == [Self.path(3)], "the server stored what it took")
    }
}

extension Record {
    fileprivate var syncKey: SyncRecord.Key { SyncRecord.Key(path: path, timestamp: timestamp) }
}
