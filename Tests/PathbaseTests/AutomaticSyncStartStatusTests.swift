import Foundation
import Testing

@testable import Pathbase

/// `AutomaticSync` keeps a copy of the replica's status, kept current by a listener on the
/// monitor (issue 60, item 5). Its start read the monitor apart from adding the listener,
/// so a change in between could leave the copy older than the monitor until the next
/// change, which may never come. The monitor now gives a new listener the current status
/// at once, under the lock its later calls run under.
@Suite("AutomaticSync: the status it starts with is never older than the replica's")
struct AutomaticSyncStartStatusTests {

    /// Never answers: the first sync waits in its pull until it is stopped, so after that
    /// only the test changes the status.
    private final class SilentTransport: SyncTransport, Sendable {
        let pulling = Locked(false)

        func push(_ request: PushRequest) async throws -> PushResponse {
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        }

        func pull(_ request: PullRequest) async throws -> PullResponse {
            pulling.withLock { $0 = true }
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        }
    }

    @Test("a listener hears the current status before addListener returns, then every later one in order")
    func listenerHearsCurrentStatus() throws {
        let replica = try Replica(database: InMemoryHistoryDatabase(), transport: SilentTransport())
        let monitor = replica.monitor
        monitor.update { $0.lastError = "before" }
        let heard = Locked<[String?]>([])
        let token = monitor.addListener { status in heard.withLock { $0.append(status.lastError) } }
        #expect(heard.withLock { $0 } == ["before"])
        monitor.update { $0.lastError = "after" }
        monitor.removeListener(token)
        monitor.update { $0.lastError = "removed" }
        #expect(heard.withLock { $0 } == ["before", "after"])
    }

    @Test("a status changed before the start is its status at once")
    func changeBeforeStart() throws {
        let replica = try Replica(database: InMemoryHistoryDatabase(), transport: SilentTransport())
        replica.monitor.update { $0.lastError = "before the start" }
        let sync = AutomaticSync(replica: replica, interval: nil)
        defer { sync.stop() }
        #expect(sync.status.replica.lastError == "before the start")
    }

    @Test("a status change on another thread while it starts is in its status once both are done", .timeLimit(.minutes(2)))
    func changeDuringStart() async throws {
        // How long a start takes here, so that the changes spread over the whole of it
        // (the window between its reading of the monitor and its storing of what it read is
        // a small part of it).
        var starts: [UInt64] = []
        for _ in 0 ..< 20 {
            let replica = try Replica(database: InMemoryHistoryDatabase(), transport: SilentTransport())
            let before = DispatchTime.now().uptimeNanoseconds
            let sync = AutomaticSync(replica: replica, interval: nil)
            starts.append(DispatchTime.now().uptimeNanoseconds - before)
            sync.stop()
        }
        let startTime = max(1, starts.sorted()[starts.count / 2])
        let rounds = 2000
        var behind: [String] = []
        for round in 1 ... rounds {
            let transport = SilentTransport()
            let replica = try Replica(database: InMemoryHistoryDatabase(), transport: transport)
            let monitor = replica.monitor
            let go = Locked(false)
            let changed = Locked(false)
            let delay = UInt64.random(in: 0 ... startTime)
            let changer = Thread {
                while !go.withLock({ $0 }) {}
                let seen = DispatchTime.now().uptimeNanoseconds
                while DispatchTime.now().uptimeNanoseconds - seen < delay {}
                monitor.update { $0.lastError = "change \(round)" }
                changed.withLock { $0 = true }
            }
            changer.start()
            go.withLock { $0 = true }
            let sync = AutomaticSync(replica: replica, interval: nil)
            // Waited for without holding a thread of the pool the loop runs on.
            while !changed.withLock({ $0 }) || !transport.pulling.withLock({ $0 }) { try await Task.sleep(for: .microseconds(100)) }
            let status = sync.status.replica
            if status != monitor.status { behind.append("round \(round): \(status.lastError ?? "no error") instead of \(monitor.status.lastError ?? "no error")") }
            sync.stop()
        }
        #expect(behind.isEmpty, "\(behind.count) of \(rounds) starts kept an older status (a start takes \(startTime) ns here): \(behind.prefix(3))")
    }
}
