import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Pruning a replica's history never removes a write the server has not acknowledged
/// (issues 15 and 49), through a real `pathbase serve` process.
@Suite("Replica pruning keeps every record the server has not acknowledged")
struct ReplicaPruningTests {

    /// The replica's database: an SQLite file or the in-memory history database.
    enum DatabaseKind: String, CaseIterable, CustomStringConvertible {
        case sqlite, memory
        var description: String { rawValue }

        func make() throws -> any PrunableHistoryDatabase {
            switch self {
            case .sqlite: try SQLiteDatabase(path: ServerTestFiles.newPath())
            case .memory: InMemoryHistoryDatabase()
            }
        }
    }

    private let path = Path(model: 7, instance: 1, property: 1)

    /// A new server store (an SQLite file) with an account, and its token.
    private func newStore() throws -> (store: [String], token: String) {
        let store = ["--database", ServerTestFiles.newPath()]
        let added = try ServeProcess.run(["accounts", "add", "alice"] + store)
        try #require(added.status == 0, "\(added.errors)")
        return (store, added.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Pulls the account into a new replica and returns its database.
    private func pulledCopy(from url: URL, token: String) async throws -> InMemoryHistoryDatabase {
        let reader = InMemoryHistoryDatabase()
        try await Replica(database: reader, transport: HTTPSyncTransport(server: url, token: token)).sync()
        return reader
    }

    @Test(
        "write, prune (nothing: none acknowledged), push, write more, prune while the server is down (only up to the watermark), push to the restarted server: a second replica pulls every version; views before the limit are empty",
        arguments: DatabaseKind.allCases)
    func pruneKeepsUnacknowledged(kind: DatabaseKind) async throws {
        let (store, token) = try newStore()
        var serve = try await ServeProcess(store: store)
        defer { serve.kill() }
        let writer = try kind.make()
        var replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))

        for n in 0 ..< 3 { writer.set("v\(n)", for: path) }
        #expect(replica.pruningLimit == nil)
        #expect(try replica.prune(before: Timestamp(latestAt: Date())) == nil)
        #expect(writer.records(at: path).count == 3)
        #expect(writer.historyStart == nil)
        #expect(try await replica.push().acknowledged == 3)
        let acknowledged = try #require(replica.pruningLimit)
        let first = writer.records(at: path).map(\.timestamp)
        #expect(first.count == 3 && first.allSatisfy { $0 <= acknowledged })

        // Offline: the server is gone, the writes stay pending.
        serve.kill()
        for n in 3 ..< 6 { writer.set("v\(n)", for: path) }
        await #expect(throws: URLError.self) { try await replica.push() }
        let written = writer.records(at: path).map(\.timestamp)
        #expect(written.count == 6)
        let pruned = try #require(try replica.prune(before: Timestamp(latestAt: Date())))
        #expect(pruned == acknowledged)
        // v0 and v1 went (v2 is the state at the watermark); v3, v4 and v5, pending, stay,
        // although v3 and v4 are superseded and older than the moment asked for.
        #expect(writer.records(at: path).map(\.timestamp) == Array(written.dropFirst(2)))
        #expect(writer.historyStart == pruned)
        // A view of a moment before the history start shows an empty database, never a
        // value that may be wrong; at the limit it is exact.
        let early = writer.view(at: first[0])
        #expect(early.isBeforeHistoryStart)
        #expect(early.get(path) as String? == nil && early.records(at: path).isEmpty)
        #expect(writer.view(at: pruned).get(path) as String? == "v2")

        // Back online (the same store, a new process and port): every pending write arrives.
        serve = try await ServeProcess(store: store)
        replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        #expect(try await replica.push().acknowledged == 3)
        #expect(replica.pendingRecords().isEmpty)
        let reader = try await pulledCopy(from: serve.url, token: token)
        #expect(reader.records(at: path).map(\.timestamp) == written)
        #expect(reader.get(path) as String? == "v5")

        // Pruning again after the push moves on to the new watermark: only v5 is left.
        let later = try #require(try replica.prune(before: Timestamp(latestAt: Date())))
        #expect(later > pruned)
        #expect(writer.records(at: path).map(\.timestamp) == [written[5]])
        #expect(writer.get(path) as String? == "v5")
    }

    @Test(
        "records the server rejected (pathbase serve --models) stay through pruning past the watermark; retried on a server that takes them, every version arrives",
        arguments: DatabaseKind.allCases)
    func pruneKeepsRejected(kind: DatabaseKind) async throws {
        let (store, token) = try newStore()
        var serve = try await ServeProcess(store: store + ["--models", "7"])
        defer { serve.kill() }
        let writer = try kind.make()
        var replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        let refused = Path(model: 8, instance: 1, property: 1)
        for n in 0 ..< 2 { writer.set("refused \(n)", for: refused) }
        for n in 0 ..< 2 { writer.set("taken \(n)", for: path) }
        let versions = writer.records(at: refused).map(\.timestamp)
        let report = try await replica.push()
        #expect(report.acknowledged == 2 && report.rejected == 2, "\(report)")
        #expect(replica.rejectedRecords().map(\.key.timestamp) == versions)

        // The watermark passed the rejected records (they are answered); the limit did not.
        let limit = try #require(replica.pruningLimit)
        #expect(limit < versions[0])
        #expect(try replica.prune(before: Timestamp(latestAt: Date())) == limit)
        #expect(writer.records(at: refused).map(\.timestamp) == versions)

        // A server that takes model 8: both rejected versions, retried, arrive.
        serve.kill()
        serve = try await ServeProcess(store: store)
        replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        for entry in replica.rejectedRecords() { try replica.retry(entry.key) }
        let retried = try await replica.push()
        #expect(retried.acknowledged == 2 && retried.rejected == 0, "\(retried)")
        let reader = try await pulledCopy(from: serve.url, token: token)
        #expect(reader.records(at: refused).map(\.timestamp) == versions)
        // Answered: pruning now takes the superseded version.
        #expect(try replica.prune(before: Timestamp(latestAt: Date())) != nil)
        #expect(writer.records(at: refused).map(\.timestamp) == [versions[1]])
    }

    @Test("records imported from another replica's export, older than the watermark, are kept by pruning until pushed", arguments: DatabaseKind.allCases)
    func pruneKeepsImported(kind: DatabaseKind) async throws {
        let (store, token) = try newStore()
        let serve = try await ServeProcess(store: store)
        defer { serve.kill() }
        // Another device, never synced, writes three versions first.
        let other = InMemoryHistoryDatabase()
        for n in 0 ..< 3 { other.set("other \(n)", for: path) }
        let imported = other.records(at: path).map(\.timestamp)
        let export = try other.exportRecords()

        let writer = try kind.make()
        let replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        let own = Path(model: 7, instance: 2, property: 1)
        for n in 0 ..< 2 { writer.set("own \(n)", for: own) }
        #expect(try await replica.push().acknowledged == 2)
        let watermark = try #require(replica.pruningLimit)
        #expect(imported.allSatisfy { $0 < watermark })

        try writer.importRecords(from: export)
        let limit = try #require(replica.pruningLimit)
        #expect(limit < imported[0])
        #expect(try replica.prune(before: Timestamp(latestAt: Date())) == limit)
        #expect(writer.records(at: path).map(\.timestamp) == imported)

        #expect(try await replica.push().acknowledged == 3)
        let reader = try await pulledCopy(from: serve.url, token: token)
        #expect(reader.records(at: path).map(\.timestamp) == imported)
        #expect(reader.records(at: own).count == 2)
        // Pushed: the limit is the watermark again, and pruning takes the superseded versions.
        #expect(try replica.prune(before: Timestamp(latestAt: Date())) == watermark)
        #expect(writer.records(at: path).map(\.timestamp) == [imported[2]])
        #expect(writer.records(at: own).count == 1)
    }

    @Test(
        "keeping 2 versions per path: nothing goes before the first push; writes made while the server is down all stay and reach the restarted server; pushed versions go by the policy; the current value stays",
        arguments: DatabaseKind.allCases)
    func retentionKeepsUnpushed(kind: DatabaseKind) async throws {
        let (store, token) = try newStore()
        var serve = try await ServeProcess(store: store)
        defer { serve.kill() }
        let retention = HistoryRetention(versions: 2)
        let writer: any HistoryDatabase =
            switch kind {
            case .sqlite: try SQLiteDatabase(path: ServerTestFiles.newPath(), options: SQLiteDatabase.Options(retention: retention))
            case .memory: InMemoryHistoryDatabase(retention: retention)
            }
        var replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        func values() -> [String] { writer.records(at: path).compactMap { $0.value as? String } }
        let versions = (0 ..< 234).map { "v\($0)" }

        // No push has found records yet: every version stays (the in-memory database trims
        // once a column holds retentionPassSize records).
        for value in versions[..<70] { writer.set(value, for: path) }
        #expect(values() == Array(versions[..<70]))
        #expect(try await replica.push().acknowledged == 70)

        // Offline: 100 versions written while the server is down stay (none is pushed);
        // those pushed before go but for the newest of them (the state at the watermark).
        serve.kill()
        for value in versions[70 ..< 170] { writer.set(value, for: path) }
        await #expect(throws: URLError.self) { try await replica.push() }
        if kind == .sqlite { #expect(values() == Array(versions[70 ..< 170])) }
        #expect(values().suffix(100) == versions[70 ..< 170])
        #expect(writer.get(path) as String? == "v169")

        // Back online (the same store, a new process): every version reaches the server.
        serve = try await ServeProcess(store: store)
        replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        #expect(try await replica.push().acknowledged == 100)
        let reader = try await pulledCopy(from: serve.url, token: token)
        #expect(reader.records(at: path).compactMap { $0.value as? String } == Array(versions[..<170]))

        // Later writes are not pushed: they stay; the pushed versions before them go (the
        // in-memory database once its column holds twice what its last pass kept).
        for value in versions[170 ..< 200] { writer.set(value, for: path) }
        #expect(values() == Array(versions[170 ..< 200]))
        #expect(try await replica.push().acknowledged == 30)
        for value in versions[200...] { writer.set(value, for: path) }
        #expect(values() == Array(versions[200...]))
        #expect(writer.get(path) as String? == "v233")
    }
}
