import Foundation
import Pathbase
@testable import PathbasePostgres
import PathbaseServer
import PathbaseTestSupport
import PathbaseSQLite
import Testing

/// What only the PostgreSQL store does: URLs, connection failures, its schema versions, and
/// `pathbase serve --postgres` processes sharing one database. The behaviour all stores
/// share is in ``SharedServerSuiteTests``.
@Suite("PostgreSQL store: URLs, unreachable servers, schema versions, several serve processes")
struct PostgresStoreTests {

    @Test("a URL that is not postgres://user@host/database is refused with the reason")
    func invalidURLs() throws {
        for (url, reason) in [
            ("http://u@h/db", "scheme"), ("postgres://h/db", "no user"), ("postgres://u@h", "one database"),
            ("postgres://u@h/a/b", "one database"), ("postgres://u@/db", "no host")
        ] {
            let error = #expect(throws: PostgresStoreError.self) { try PostgresURL.configuration(from: url) }
            guard case .invalidURL = error else {
                Issue.record("\(url): \(String(describing: error))")
                continue
            }
            #expect(error?.localizedDescription.contains(reason) == true, "\(url)")
        }
        #expect(throws: Never.self) { try PostgresURL.configuration(from: "postgresql://user:p%40ss@127.0.0.1:5433/pathbase") }
        #expect(try PostgresURL.redacted("postgres://u:secret@h:1/db") == "postgres://u@h:1/db")
    }

    @Test("a server that does not answer is a typed error, not an endless wait")
    func unreachable() async throws {
        // A port that was free a moment ago: nothing listens there.
        let port = try freePort()
        let error = await #expect(throws: PostgresStoreError.self) {
            _ = try await PostgresSyncServerStore(url: "postgres://pathbase@127.0.0.1:\(port)/pathbase", connectTimeout: 2)
        }
        guard case .unreachable = error else {
            Issue.record("not unreachable: \(String(describing: error))")
            return
        }
        #expect(error?.localizedDescription.contains("PostgreSQL cannot be reached") == true)
    }

    @Test("the schema is created once by servers starting together, and a newer schema is refused untouched")
    func schemaVersions() async throws {
        let url = try await TestPostgres.newDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresSyncServerStore.self) { group in
            for _ in 0 ..< 3 {
                group.addTask { try await TestPostgres.store(url: url) }
            }
            var stores: [PostgresSyncServerStore] = []
            for try await store in group { stores.append(store) }
            return stores
        }
        #expect(try await TestPostgres.query("SELECT version FROM pathbase_schema ORDER BY version", on: url) == (1 ... PostgresSchema.currentVersion).map(Int64.init))
        let account = try await stores[0].addAccount(name: "kept", tokenHash: [7])
        for store in stores { await store.close() }

        _ = try await TestPostgres.query("INSERT INTO pathbase_schema (version) VALUES (99)", on: url)
        await #expect(throws: PostgresStoreError.newerSchema(found: 99, known: PostgresSchema.currentVersion)) {
            _ = try await TestPostgres.store(url: url)
        }
        #expect(try await TestPostgres.query("SELECT id FROM accounts", on: url) == [account.rawValue])
    }

    @Test("a page is read as a range of numbers, and still finds the records after a gap in the log")
    func pagesAcrossGaps() async throws {
        let url = try await TestPostgres.newDatabase()
        let store = try await TestPostgres.store(url: url)
        let account = try await store.addAccount(name: "gaps", tokenHash: [9])
        let records = try (1 ... 10).map { instance in
            try SyncRecord(Record(path: Path(model: 5, instance: instance, property: 1), timestamp: Timestamp(time: 10, counter: UInt32(instance), replica: 3), value: "v\(instance)"))
        }
        _ = try await store.append(records, to: account)
        #expect(try await store.records(of: account, after: 2, limit: 3).map(\.sequence) == [3, 4, 5])
        #expect(try await store.records(of: account, after: 8, limit: 5).map(\.sequence) == [9, 10])
        #expect(try await store.records(of: account, after: Int64.max - 1, limit: 5).isEmpty)
        // No Pathbase server leaves a gap; one made by hand must not hide what follows it.
        _ = try await TestPostgres.query("DELETE FROM records WHERE sequence IN (4, 5, 6)", on: url)
        #expect(try await store.records(of: account, after: 2, limit: 3).map(\.sequence) == [3, 7, 8])
        #expect(try await store.records(of: account, after: 3, limit: 100).map(\.record) == Array(records[6...]))
        await store.close()
    }

    @Test("a database of schema version 5 gets version 6's append function, and its appends then work as before")
    func migratesVersion5() async throws {
        let url = try await TestPostgres.newDatabase()
        let first = try await TestPostgres.store(url: url)
        let account = try await first.addAccount(name: "five", tokenHash: [5])
        let kept = try SyncRecord(Record(path: Path(model: 5, instance: 1, property: 1), timestamp: Timestamp(time: 10, counter: 0, replica: 3), value: "kept"))
        #expect(try await first.append([kept], to: account) == [.appended(sequence: 1)])
        await first.close()
        // As a version-5 server left it: its own function (stood in for by one that fails, so
        // that only a replaced function lets appends through) and no version 6.
        _ = try await TestPostgres.query("DELETE FROM pathbase_schema WHERE version > 5", on: url)
        _ = try await TestPostgres.query("ALTER TABLE accounts DROP COLUMN compacted_through", on: url)
        _ = try await TestPostgres.query("DROP INDEX records_by_writer", on: url)
        _ = try await TestPostgres.query(
            """
            CREATE OR REPLACE FUNCTION pathbase_append(
                p_account BIGINT, p_models BIGINT[], p_instances BIGINT[], p_properties BIGINT[],
                p_times BIGINT[], p_counters BIGINT[], p_replicas BIGINT[], p_types TEXT[], p_values BYTEA[])
            RETURNS TABLE (o_sequence BIGINT, o_appended BOOLEAN, o_same BOOLEAN)
            LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'version 5 function'; END $f$
            """, on: url)

        let store = try await TestPostgres.store(url: url)
        #expect(try await TestPostgres.query("SELECT version FROM pathbase_schema ORDER BY version", on: url) == (1 ... PostgresSchema.currentVersion).map(Int64.init))
        let new = try SyncRecord(Record(path: Path(model: 5, instance: 2, property: 1), timestamp: Timestamp(time: 11, counter: 0, replica: 3), value: "new"))
        #expect(try await store.append([kept, new, new], to: account) == [.alreadyStored(sequence: 1), .appended(sequence: 2), .alreadyStored(sequence: 2)])
        #expect(try await store.records(of: account, after: 0, limit: 10).map(\.record) == [kept, new])
        await store.close()
    }

    @Test("a database of schema version 1 (before the command relay and assets) is migrated in place: its accounts and records are kept, numbering goes on, commands relay, assets are stored")
    func migratesVersion1() async throws {
        let url = try await TestPostgres.newDatabase()
        // A database as a version-1 server left it, with an account and two records.
        _ = try await TestPostgres.query("CREATE TABLE pathbase_schema (version INTEGER NOT NULL)", on: url)
        for statement in PostgresSchema.versions[0] {
            _ = try await TestPostgres.query(statement, on: url)
        }
        _ = try await TestPostgres.query("INSERT INTO pathbase_schema (version) VALUES (1)", on: url)
        _ = try await TestPostgres.query("INSERT INTO accounts (name, token_hash, last_sequence) VALUES ('old', decode('0102', 'hex'), 2)", on: url)
        let old = try (1 ... 2).map { instance in
            try SyncRecord(Record(path: Path(model: 5, instance: instance, property: 1), timestamp: Timestamp(time: 10, counter: 0, replica: 3), value: "value \(instance)"))
        }
        for (index, record) in old.enumerated() {
            let hex = record.valueJSON.map { String(format: "%02x", $0) }.joined()
            _ = try await TestPostgres.query(
                """
                INSERT INTO records VALUES (1, \(index + 1), 5, \(record.path.instance), 1, 10, 0, 3, '\(record.valueType)', decode('\(hex)', 'hex'))
                """, on: url)
        }

        let store = try await TestPostgres.store(url: url)
        #expect(try await TestPostgres.query("SELECT version FROM pathbase_schema ORDER BY version", on: url) == (1 ... PostgresSchema.currentVersion).map(Int64.init))
        let account = try #require(try await store.account(tokenHash: [1, 2]))
        #expect(try await store.records(of: account, after: 0, limit: 10) == old.enumerated().map { SequencedRecord(sequence: Int64($0 + 1), record: $1) })
        let new = try SyncRecord(Record(path: Path(model: 5, instance: 3, property: 1), timestamp: Timestamp(time: 11, counter: 0, replica: 3), value: "new"))
        #expect(try await store.append([old[0], new], to: account) == [.alreadyStored(sequence: 1), .appended(sequence: 3)])
        let id = try await store.enqueue(CommandRelayRequest(sender: 1, target: 2, message: Data("{}".utf8)), in: account)
        #expect(try await store.waitingCommands(for: [2], in: account, limit: 5).map(\.id) == [id])
        // The inbox's partial index exists.
        #expect(try await TestPostgres.query("SELECT count(*) FROM pg_indexes WHERE indexname = 'waiting_commands'", on: url) == [1])
        // Asset content (version 3) is stored and read back.
        let content = Data("kept in bytea".utf8)
        let asset = try InMemoryDatabase().assetStore().store(content)
        #expect(try await store.appendAssetChunk(content, to: asset, at: 0, in: account) == Int64(content.count))
        #expect(try await store.assetChunk(asset.hash, from: 5, maxCount: 100, in: account) == content.dropFirst(5))
        await store.close()
    }

    @Test("two pathbase serve processes on one PostgreSQL: a record pushed to one is pulled from the other; one killed during a push, the other takes the retry and nothing is lost or duplicated")
    func twoServeProcesses() async throws {
        let url = try await TestPostgres.newDatabase()
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--postgres", url])
        #expect(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 43)
        let again = try await ServeProcess.run(["accounts", "add", "alice", "--postgres", url])
        #expect(again.status != 0 && again.errors.contains("exists already"), "\(again.errors)")

        let east = try await ServeProcess(store: ["--postgres", url])
        defer { east.kill() }
        let west = try await ServeProcess(store: ["--postgres", url])
        defer { west.kill() }
        #expect(east.output.contains("(postgres postgres://"))

        let writer = try SQLiteDatabase(path: ServerTestFiles.newPath())
        for instance in 1 ... 2000 {
            writer.set("value \(instance)", for: Path(model: 7, instance: instance, property: 1))
        }
        // East dies while the 11th batch of 50 is in flight: 10 batches were acknowledged by
        // east, and the rest must go through west.
        let killing = KillingTransport(base: HTTPSyncTransport(server: east.url, token: token), killing: east, duringPush: 11)
        let throughEast = try Replica(database: writer, transport: killing, batchSize: 50)
        do {
            try await throughEast.push()
            Issue.record("the push went through although east was killed during it")
        } catch is ReplicaError {
            throw HTTPTestFailure("the replica failed, not the connection")
        } catch {
            // The connection broke when east died: expected.
        }
        let acknowledgedByEast = 2000 - throughEast.pendingRecords().count
        #expect(acknowledgedByEast >= 500 && acknowledgedByEast < 2000, "the kill did not land mid-push: \(acknowledgedByEast) acknowledged")
        let throughWest = try Replica(database: writer, transport: HTTPSyncTransport(server: west.url, token: token), batchSize: 50)
        let retried = try await throughWest.sync()
        #expect(throughWest.pendingRecords().isEmpty)
        #expect(retried.acknowledged == 2000 - acknowledgedByEast, "west took the records east had not acknowledged")

        let reader = InMemoryHistoryDatabase()
        let readerReplica = try Replica(database: reader, transport: HTTPSyncTransport(server: west.url, token: token), pageSize: 300)
        #expect(try await readerReplica.sync().pulled == 2000)
        for instance in [1, 1000, 2000] {
            #expect(reader.get(Path(model: 7, instance: instance, property: 1)) == "value \(instance)")
        }
        #expect(try await TestPostgres.query("SELECT count(*) FROM records", on: url) == [2000])
        #expect(try await TestPostgres.query("SELECT max(sequence) FROM records", on: url) == [2000])
    }

    @Test("pathbase serve with an unreachable PostgreSQL exits non-zero and says why")
    func serveUnreachable() throws {
        let port = try freePort()
        let result = try ServeProcess.run(["accounts", "add", "alice", "--postgres", "postgres://pathbase@127.0.0.1:\(port)/pathbase"])
        #expect(result.status != 0)
        #expect(result.errors.contains("PostgreSQL cannot be reached"), "\(result.errors)")
        let both = try ServeProcess.run(["serve", "--database", "x.sqlite", "--postgres", "postgres://u@h/db"])
        #expect(both.status != 0 && both.errors.contains("either --database or --postgres"), "\(both.errors)")
    }

    private func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HTTPTestFailure("no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw HTTPTestFailure("cannot bind a port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
