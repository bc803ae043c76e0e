import Foundation
import Pathbase
@testable import PathbasePostgres
import PathbaseServer
import PathbaseTestSupport
import Testing

/// Command numbers count each account's commands (issue 45): a number tells an account
/// nothing of how many commands the others sent, and stores made before keep their
/// commands' numbers, so a sender's ticket still finds its answer.
@Suite("Command numbers are per account: from 1 in each, migrated stores keep theirs")
struct CommandNumberTests {

    private func request(_ sender: UInt32, to target: UInt32, _ text: String) -> CommandRelayRequest {
        CommandRelayRequest(sender: sender, target: target, message: Data(text.utf8))
    }

    @Test("two accounts sending commands in turn each see numbers 1, 2, 3 …; a number names the account's own command only", arguments: StoreKind.allCases)
    func numbersPerAccount(kind: StoreKind) async throws {
        let store = try await kind.makeCommandQueue()
        let office = try await store.addAccount(name: "office", tokenHash: [1])
        let home = try await store.addAccount(name: "home", tokenHash: [2])
        var officeNumbers: [Int64] = [], homeNumbers: [Int64] = []
        for round in 0 ..< 3 {
            officeNumbers.append(try await store.enqueue(request(1, to: 2, "office \(round)"), in: office))
            officeNumbers.append(try await store.enqueue(request(1, to: 2, "office \(round) again"), in: office))
            homeNumbers.append(try await store.enqueue(request(7, to: 8, "home \(round)"), in: home))
        }
        #expect(officeNumbers == [1, 2, 3, 4, 5, 6])
        #expect(homeNumbers == [1, 2, 3], "home's numbers count office's commands too")

        #expect(try await store.waitingCommands(for: [8], in: home, limit: 10).map(\.id) == [1, 2, 3])
        #expect(try await store.waitingCommands(for: [8], in: home, limit: 10).map { String(decoding: $0.message, as: UTF8.self) } == ["home 0", "home 1", "home 2"])
        // Number 1 in each account is that account's command: an answer in one changes
        // nothing in the other.
        try await store.answer(1, by: 8, response: Data("home's answer".utf8), in: home)
        #expect(try await store.response(to: 1, in: home) == Data("home's answer".utf8))
        #expect(try await store.response(to: 1, in: office) == nil)
        #expect(try await store.waitingCommands(for: [2], in: office, limit: 10).map(\.id) == [1, 2, 3, 4, 5, 6])
        // A number the account has not reached is unknown to it, whatever the others sent.
        await #expect(throws: SyncServerError.unknownCommand(4)) { try await store.response(to: 4, in: home) }
        await #expect(throws: SyncServerError.unknownCommand(4)) { try await store.answer(4, by: 8, response: Data(), in: home) }
        // An account added later starts at 1 too.
        let third = try await store.addAccount(name: "third", tokenHash: [3])
        #expect(try await store.enqueue(request(1, to: 2, "third"), in: third) == 1)
    }

    @Test(
        "a server store of schema v3 (commands numbered by the table) is migrated: old commands keep their numbers and answers, each account's numbering goes on after its largest",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func migratesSQLite() async throws {
        let path = ServerTestFiles.newPath()
        // The tables and migration log as a v3 server left them: office sent commands 1, 3
        // and 4 (4 answered), home sent 2.
        let made = try await ChildProcess.run(
            "/usr/bin/sqlite3",
            [
                path,
                """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1'), ('v2: relayed commands'), ('v3: asset content');
                CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_hash BLOB NOT NULL UNIQUE, last_sequence INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE records (account INTEGER NOT NULL REFERENCES accounts(id), sequence INTEGER NOT NULL,
                    model INTEGER NOT NULL, instance INTEGER NOT NULL, property INTEGER NOT NULL,
                    time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                    type TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (account, sequence)) WITHOUT ROWID;
                CREATE UNIQUE INDEX records_by_key ON records(account, model, instance, property, time, counter, replica);
                CREATE TABLE commands (id INTEGER PRIMARY KEY, account INTEGER NOT NULL REFERENCES accounts(id),
                    sender INTEGER NOT NULL, target INTEGER NOT NULL, message BLOB NOT NULL, response BLOB);
                CREATE INDEX waiting_commands ON commands(account, target, id) WHERE response IS NULL;
                CREATE TABLE assets (account INTEGER NOT NULL REFERENCES accounts(id), hash TEXT NOT NULL, size INTEGER NOT NULL,
                    received INTEGER NOT NULL DEFAULT 0, complete INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (account, hash)) WITHOUT ROWID;
                CREATE TABLE asset_chunks (account INTEGER NOT NULL, hash TEXT NOT NULL, start INTEGER NOT NULL, content BLOB NOT NULL,
                    UNIQUE (account, hash, start), FOREIGN KEY (account, hash) REFERENCES assets(account, hash) ON DELETE CASCADE);
                INSERT INTO accounts (id, name, token_hash) VALUES (1, 'office', x'01'), (2, 'home', x'02');
                INSERT INTO commands (id, account, sender, target, message, response) VALUES
                    (1, 1, 1, 2, CAST('one' AS BLOB), NULL), (2, 2, 7, 8, CAST('two' AS BLOB), NULL),
                    (3, 1, 1, 2, CAST('three' AS BLOB), NULL), (4, 1, 1, 2, CAST('four' AS BLOB), CAST('answered' AS BLOB));
                """
            ])
        try #require(made.status == 0, "\(made.errors)")

        try await expectMigrated(try SQLiteSyncServerStore(path: path))
        // Opened again: nothing migrates twice.
        try await expectNumbering(try SQLiteSyncServerStore(path: path), office: 6, home: 4)
    }

    @Test(
        "a PostgreSQL store of schema version 3 (commands numbered by a shared sequence) is migrated: old commands keep their numbers and answers, each account's numbering goes on after its largest")
    func migratesPostgres() async throws {
        let url = try await TestPostgres.newDatabase()
        _ = try await TestPostgres.query("CREATE TABLE pathbase_schema (version INTEGER NOT NULL)", on: url)
        for statement in PostgresSchema.versions[0 ..< 3].joined() {
            _ = try await TestPostgres.query(statement, on: url)
        }
        _ = try await TestPostgres.query("INSERT INTO pathbase_schema (version) VALUES (1), (2), (3)", on: url)
        _ = try await TestPostgres.query("INSERT INTO accounts (id, name, token_hash) VALUES (1, 'office', decode('01', 'hex')), (2, 'home', decode('02', 'hex'))", on: url)
        _ = try await TestPostgres.query(
            """
            INSERT INTO commands (id, account, sender, target, message, response) VALUES
                (1, 1, 1, 2, convert_to('one', 'UTF8'), NULL), (2, 2, 7, 8, convert_to('two', 'UTF8'), NULL),
                (3, 1, 1, 2, convert_to('three', 'UTF8'), NULL), (4, 1, 1, 2, convert_to('four', 'UTF8'), convert_to('answered', 'UTF8'))
            """, on: url)
        // The shared sequence as the version-3 server left it.
        _ = try await TestPostgres.query("SELECT setval('commands_id_seq', 4)", on: url)

        try await expectMigrated(try await TestPostgres.store(url: url))
        #expect(try await TestPostgres.query("SELECT version FROM pathbase_schema ORDER BY version", on: url) == (1 ... PostgresSchema.currentVersion).map(Int64.init))
        try await expectNumbering(try await TestPostgres.store(url: url), office: 6, home: 4)
    }

    /// The migrated store of the v3 fixtures: office's commands 1, 3, 4 (4 answered) and
    /// home's 2, read by the numbers their senders hold.
    private func expectMigrated(_ store: any SyncServerStore) async throws {
        let queue = try StoreKind.commandQueue(store)
        let office = try #require(try await queue.account(tokenHash: [1]))
        let home = try #require(try await queue.account(tokenHash: [2]))
        let waiting = try await queue.waitingCommands(for: [2], in: office, limit: 10)
        #expect(waiting.map(\.id) == [1, 3])
        #expect(waiting.map { String(decoding: $0.message, as: UTF8.self) } == ["one", "three"])
        #expect(try await queue.response(to: 4, in: office) == Data("answered".utf8))
        #expect(try await queue.waitingCommands(for: [8], in: home, limit: 10).map(\.id) == [2])
        await #expect(throws: SyncServerError.unknownCommand(1)) { try await queue.response(to: 1, in: home) }
        try await queue.answer(3, by: 2, response: Data("late".utf8), in: office)
        #expect(try await queue.response(to: 3, in: office) == Data("late".utf8))
        try await expectNumbering(queue, office: 5, home: 3)
    }

    /// The next command of each account gets the number after the account's largest.
    private func expectNumbering(_ store: any SyncServerStore, office officeNext: Int64, home homeNext: Int64) async throws {
        let queue = try StoreKind.commandQueue(store)
        let office = try #require(try await queue.account(tokenHash: [1]))
        let home = try #require(try await queue.account(tokenHash: [2]))
        #expect(try await queue.enqueue(request(1, to: 2, "after"), in: office) == officeNext)
        #expect(try await queue.enqueue(request(7, to: 8, "after"), in: home) == homeNext)
    }
}
