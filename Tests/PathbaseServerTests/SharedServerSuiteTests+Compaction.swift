import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// Compaction on every store: a pull from before the horizon gets the newest record of each
/// path and writer, then the whole log; pushes and pulls running meanwhile lose nothing.
extension SharedServerSuiteTests {

    private func version(_ path: Path, time: Int64, replica: UInt32 = 3, _ value: some DatabaseValue) throws -> SyncRecord {
        try SyncRecord(Record(path: path, timestamp: Timestamp(time: time, counter: 0, replica: replica), value: value))
    }

    private func compacting(_ store: any SyncServerStore) throws -> any CompactingStore {
        guard let store = store as? any CompactingStore else { throw HTTPTestFailure("\(type(of: store)) does not compact") }
        return store
    }

    /// Every record after `cursor`, read in pages of `limit` as a replica does.
    private func pullAll(_ store: any SyncServerStore, _ account: AccountID, after cursor: Int64 = 0, limit: Int) async throws -> [SequencedRecord] {
        var all: [SequencedRecord] = []
        var cursor = cursor
        while true {
            let page = try await store.records(of: account, after: cursor, limit: limit)
            guard let last = page.last else { return all }
            if page.count < limit {
                #expect(try await store.records(of: account, after: last.sequence, limit: 1).isEmpty, "only the last page may be short")
            }
            all += page
            cursor = last.sequence
        }
    }

    /// The newest time of each instance and writer among records.
    private static func newestTimes(_ records: [SyncRecord]) -> [String: Int64] {
        records.reduce(into: [:]) { newest, record in
            let key = "\(record.path.instance) \(record.timestamp.replica)"
            newest[key] = max(newest[key] ?? 0, record.timestamp.time)
        }
    }

    @Test("a pull from before the compaction horizon gets the newest record of each path and writer (deletions too), then the whole log after it", arguments: StoreKind.allCases)
    func compactedPull(kind: StoreKind) async throws {
        let store = try compacting(try await kind.make())
        let account = try await store.addAccount(name: "a", tokenHash: [1])
        let title = Path(model: 5, instance: 1, property: 1)
        let counter = Path(model: 5, instance: 1, property: 2)
        let status = Path.status(model: 5, instance: 2)
        let before = [
            try version(title, time: 1, "first"), try version(counter, time: 1, replica: 3, "3: +1"),
            try version(title, time: 2, "second"), try version(counter, time: 2, replica: 4, "4: +5"),
            try version(status, time: 1, InstanceStatus.created), try version(title, time: 3, "third"),
            try version(status, time: 2, InstanceStatus.deleted), try version(counter, time: 3, replica: 3, "3: +2")
        ]
        let after = [try version(title, time: 4, "fourth"), try version(title, time: 5, "fifth")]
        _ = try await store.append(before + after, to: account)

        #expect(try await store.compact(account, through: 8, batchSize: 3) == 4)
        #expect(try await store.compactionHorizon(of: account) == 8)
        #expect(try await store.latestSequence(of: account) == 10)
        // Per path and writer the newest up to the horizon: the counter keeps both writers'
        // states, the status its deletion; after the horizon every record.
        let expected = [(4, before[3]), (6, before[5]), (7, before[6]), (8, before[7]), (9, after[0]), (10, after[1])]
            .map { SequencedRecord(sequence: $0.0, record: $0.1) }
        #expect(try await store.records(of: account, after: 0, limit: 100) == expected)
        for limit in 1 ... 4 {
            #expect(try await pullAll(store, account, limit: limit) == expected, "pages of \(limit) across the gaps")
        }
        #expect(try await pullAll(store, account, after: 4, limit: 2) == Array(expected.dropFirst()))
        // A replica nearly caught up gets every record after its cursor.
        #expect(try await store.records(of: account, after: 8, limit: 10) == Array(expected.suffix(2)))
        // A second pass finds nothing more; a kept record pushed again is stored once.
        #expect(try await store.compact(account, through: 8) == 0)
        #expect(try await store.append([before[5]], to: account) == [.alreadyStored(sequence: 6)])
    }

    @Test("the next pass compacts what came after the horizon: a newer record supersedes the kept one, an older one pushed late goes", arguments: StoreKind.allCases)
    func incrementalCompaction(kind: StoreKind) async throws {
        let store = try compacting(try await kind.make())
        let account = try await store.addAccount(name: "a", tokenHash: [1])
        let path = Path(model: 5, instance: 1, property: 1)
        _ = try await store.append([try version(path, time: 5, "five"), try version(path, time: 10, "ten")], to: account)
        #expect(try await store.compact(account, through: 2) == 1)
        // Pushed after the first pass: one older than the kept record, one newer.
        _ = try await store.append([try version(path, time: 7, "seven, late"), try version(path, time: 12, "twelve")], to: account)
        #expect(try await store.records(of: account, after: 0, limit: 10).map(\.sequence) == [2, 3, 4])
        #expect(try await store.compactAll(keepingWhole: 0) == CompactionReport(accounts: 1, removed: 2))
        #expect(try await store.records(of: account, after: 0, limit: 10) == [SequencedRecord(sequence: 4, record: try version(path, time: 12, "twelve"))])
        // Nothing beyond the latest record: the horizon stops there.
        #expect(try await store.compact(account, through: 100) == 0)
        #expect(try await store.compactionHorizon(of: account) == 4)
        #expect(try await store.compactAll(keepingWhole: 0) == CompactionReport(accounts: 0, removed: 0))
    }

    /// Pushers write versions of a few paths while another connection compacts and a reader
    /// pulls from the start again and again: every pass of the reader ends with the newest
    /// version of each path and writer it could have seen, and the log ends compacted. Half
    /// way the pushers wait until a compaction has removed records, so that compaction
    /// surely runs between pushes (on a fast machine the pushers could end before its
    /// first pass).
    @Test("pushes and pulls while compaction runs lose nothing: each pull from the start ends with every path's newest version", arguments: StoreKind.allCases)
    func compactionWhilePushing(kind: StoreKind) async throws {
        let pushers = 3, versions = 40, paths = 5
        let stores = try await kind.makeShared(count: pushers + 2)
        let token = try await SyncServer(store: stores[0]).addAccount(named: "busy")
        let account = AccountID(rawValue: 1)
        let compactor = try compacting(stores[pushers])
        let reader = SyncServer(store: stores[pushers + 1])
        let done = Locked(0)
        let removedWhilePushing = Locked(0)
        // Per pusher, the last version every path of it was acknowledged at.
        let acknowledged = Locked([Int64](repeating: 0, count: pushers))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pusher in 0 ..< pushers {
                let server = SyncServer(store: stores[pusher])
                group.addTask {
                    defer { done.withLock { $0 += 1 } }
                    for time in 1 ... versions {
                        let records = try (0 ..< paths).map { path in
                            try version(Path(model: 5, instance: path, property: 1), time: Int64(time), replica: UInt32(pusher + 1), "p\(pusher) v\(time)")
                        }
                        #expect(try await server.push(PushRequest(replica: UInt32(pusher + 1), records: records), token: token).acknowledged.count == paths)
                        acknowledged.withLock { $0[pusher] = Int64(time) }
                        if time == versions / 2 {
                            let deadline = Date().addingTimeInterval(TestPostgres.storeTimeout)
                            while removedWhilePushing.withLock({ $0 }) == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
                        }
                    }
                }
            }
            group.addTask {
                while done.withLock({ $0 }) < pushers {
                    let report = try await compactor.compactAll(keepingWhole: 4, batchSize: 7)
                    removedWhilePushing.withLock { $0 += report.removed }
                    await Task.yield()
                }
            }
            group.addTask {
                var pulls = 0
                while done.withLock({ $0 }) < pushers || pulls == 0 {
                    pulls += 1
                    // What was acknowledged before the pull began must be in what it ends with.
                    let before = acknowledged.withLock { $0 }
                    var pulled: [SyncRecord] = []
                    var cursor: Int64 = 0
                    while true {
                        let page = try await reader.pull(PullRequest(after: cursor, limit: 6), token: token)
                        pulled += page.records
                        cursor = page.cursor
                        if !page.hasMore { break }
                    }
                    let seen = Self.newestTimes(pulled)
                    for pusher in 0 ..< pushers where before[pusher] > 0 {
                        for path in 0 ..< paths {
                            #expect((seen["\(path) \(pusher + 1)"] ?? 0) >= before[pusher], "pull \(pulls): path \(path) of pusher \(pusher)")
                        }
                    }
                    // A pull of an in-process store may never suspend: without a yield the
                    // readers of the three store kinds (run in parallel) hold both threads of
                    // a two-core pool while the pushers wait for a compaction (seen hanging).
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        #expect(removedWhilePushing.current > 0, "no compaction removed anything while the pushers pushed")
        _ = try await compactor.compactAll(keepingWhole: 0)
        let final = try await pullAll(stores[0], account, limit: 5)
        #expect(final.count == pushers * paths, "one record per path and writer")
        #expect(Self.newestTimes(final.map(\.record)).values.allSatisfy { $0 == Int64(versions) })
    }
}
