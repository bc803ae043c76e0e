import Foundation
import GRDB
import Pathbase

/// A ``SyncServerStore`` in one SQLite file for all accounts (through GRDB): what
/// `pathbase serve` runs on by default.
///
/// ```swift
/// let store = try SQLiteSyncServerStore(path: "server.sqlite")
/// let server = SyncServer(store: store)
/// ```
///
/// Every append is one transaction: after a crash, a push is stored entirely or not at all,
/// and a client that repeats it gets the same sequence numbers. Asset content goes in the same
/// file, in chunks (see ``AssetContentStore``). Safe to use from any thread.
public final class SQLiteSyncServerStore: CommandQueueStore, AssetContentStore, CompactingStore {

    let queue: DatabaseQueue

    /// Opens (or creates) the store's file.
    ///
    /// Throws ``SyncServerError/storageFailed(_:)`` if the file cannot be opened or is not
    /// a store.
    public init(path: String) throws {
        do {
            var configuration = Configuration()
            configuration.journalMode = .wal
            // Several servers may open one file: a writer waits for another's transaction.
            configuration.busyMode = .timeout(10)
            queue = try DatabaseQueue(path: path, configuration: configuration)
            // A push acknowledged is never sent again: it must survive a power cut, so the WAL
            // is synced at every commit (GRDB's WAL set-up chose NORMAL: synced at checkpoints).
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try SQLiteSyncServerStore.migrator.migrate(queue)
        } catch {
            throw SyncServerError.storageFailed("cannot open \(path): \(error)")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE accounts (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE,
                        token_hash BLOB NOT NULL UNIQUE,
                        last_sequence INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE records (
                        account INTEGER NOT NULL REFERENCES accounts(id),
                        sequence INTEGER NOT NULL,
                        model INTEGER NOT NULL, instance INTEGER NOT NULL, property INTEGER NOT NULL,
                        time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                        type TEXT NOT NULL, value BLOB NOT NULL,
                        PRIMARY KEY (account, sequence)) WITHOUT ROWID;
                    CREATE UNIQUE INDEX records_by_key
                        ON records(account, model, instance, property, time, counter, replica);
                    """)
        }
        migrator.registerMigration("v2: relayed commands") { db in
            try db.execute(
                sql: """
                    CREATE TABLE commands (
                        id INTEGER PRIMARY KEY,
                        account INTEGER NOT NULL REFERENCES accounts(id),
                        sender INTEGER NOT NULL, target INTEGER NOT NULL,
                        message BLOB NOT NULL, response BLOB);
                    CREATE INDEX waiting_commands ON commands(account, target, id) WHERE response IS NULL;
                    """)
        }
        migrator.registerMigration("v3: asset content") { db in
            // Chunks are rows of their own (not WITHOUT ROWID: SQLite keeps large blobs best
            // in rowid tables), found by the asset and their first byte.
            try db.execute(
                sql: """
                    CREATE TABLE assets (
                        account INTEGER NOT NULL REFERENCES accounts(id),
                        hash TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        received INTEGER NOT NULL DEFAULT 0,
                        complete INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (account, hash)) WITHOUT ROWID;
                    CREATE TABLE asset_chunks (
                        account INTEGER NOT NULL,
                        hash TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        content BLOB NOT NULL,
                        UNIQUE (account, hash, start),
                        FOREIGN KEY (account, hash) REFERENCES assets(account, hash) ON DELETE CASCADE);
                    """)
        }
        migrator.registerMigration("v4: command numbers per account") { db in
            // A command's number was the table's rowid, shared by all accounts, so an account
            // learned how many commands the others sent. From now on each account counts its
            // own (`last_command`). Commands stored before keep their number, so that a
            // sender's ticket still finds its answer, and an account's count continues after
            // its largest one.
            try db.execute(
                sql: """
                    ALTER TABLE accounts ADD COLUMN last_command INTEGER NOT NULL DEFAULT 0;
                    UPDATE accounts SET last_command = coalesce((SELECT max(id) FROM commands WHERE commands.account = accounts.id), 0);
                    ALTER TABLE commands ADD COLUMN number INTEGER NOT NULL DEFAULT 0;
                    UPDATE commands SET number = id;
                    CREATE UNIQUE INDEX commands_by_number ON commands(account, number);
                    """)
        }
        migrator.registerMigration("v5: compaction horizon") { db in
            try db.execute(sql: "ALTER TABLE accounts ADD COLUMN compacted_through INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v6: records by writer") { db in
            // A push is checked against what the server holds of its replica's id
            // (SyncServer's continuity check): one range of this index per push.
            try db.execute(sql: "CREATE INDEX records_by_writer ON records(account, replica, time, counter)")
        }
        return migrator
    }

    public func addAccount(name: String, tokenHash: [UInt8]) throws -> AccountID {
        try run {
            try queue.write { db in
                if try Int64.fetchOne(db, sql: "SELECT id FROM accounts WHERE name = ?", arguments: [name]) != nil {
                    throw SyncServerError.accountExists(name)
                }
                try db.execute(sql: "INSERT INTO accounts(name, token_hash) VALUES (?, ?)", arguments: [name, Data(tokenHash)])
                return AccountID(rawValue: db.lastInsertedRowID)
            }
        }
    }

    public func account(tokenHash: [UInt8]) throws -> AccountID? {
        try run {
            try queue.read { db in
                try Int64.fetchOne(db, sql: "SELECT id FROM accounts WHERE token_hash = ?", arguments: [Data(tokenHash)])
                    .map(AccountID.init(rawValue:))
            }
        }
    }

    public func append(_ records: [SyncRecord], to account: AccountID) throws -> [AppendOutcome] {
        try run {
            var outcomes: [AppendOutcome] = []
            // IMMEDIATE: the write lock is taken before `last_sequence` is read, so a server
            // on another connection to the file cannot number the same records.
            try queue.inTransaction(.immediate) { db in
                guard var last = try Int64.fetchOne(db, sql: "SELECT last_sequence FROM accounts WHERE id = ?", arguments: [account.rawValue]) else {
                    throw SyncServerError.unknownAccount(account)
                }
                let find = try db.cachedStatement(
                    sql: """
                        SELECT sequence, type, value FROM records
                        WHERE account = ? AND model = ? AND instance = ? AND property = ? AND time = ? AND counter = ? AND replica = ?
                        """)
                let insert = try db.cachedStatement(
                    sql: """
                        INSERT INTO records(account, sequence, model, instance, property, time, counter, replica, type, value)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for record in records {
                    let key: [(any DatabaseValueConvertible)?] = [
                        record.path.model, record.path.instance, record.path.property,
                        record.timestamp.time, Int64(record.timestamp.counter), Int64(record.timestamp.replica)
                    ]
                    if let row = try Row.fetchOne(find, arguments: StatementArguments([account.rawValue] + key)) {
                        let same = row["type"] as String == record.valueType && row["value"] as Data == record.valueJSON
                        outcomes.append(same ? .alreadyStored(sequence: row["sequence"]) : .conflicting)
                        continue
                    }
                    last += 1
                    try insert.execute(arguments: StatementArguments([account.rawValue, last] + key + [record.valueType, record.valueJSON]))
                    outcomes.append(.appended(sequence: last))
                }
                try db.execute(sql: "UPDATE accounts SET last_sequence = ? WHERE id = ?", arguments: [last, account.rawValue])
                return .commit
            }
            return outcomes
        }
    }

    public func records(of account: AccountID, after sequence: Int64, limit: Int) throws -> [SequencedRecord] {
        try run {
            try queue.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT sequence, model, instance, property, time, counter, replica, type, value FROM records
                        WHERE account = ? AND sequence > ? ORDER BY sequence LIMIT ?
                        """, arguments: [account.rawValue, sequence, max(0, limit)])
                return try rows.map { row in
                    guard let counter = UInt32(exactly: row["counter"] as Int64), let replica = UInt32(exactly: row["replica"] as Int64) else {
                        throw SyncServerError.storageFailed("a stored timestamp is out of range")
                    }
                    let record = SyncRecord(
                        path: Path(model: row["model"], instance: row["instance"], property: row["property"]),
                        timestamp: Timestamp(time: row["time"], counter: counter, replica: replica),
                        valueType: row["type"], valueJSON: row["value"])
                    return SequencedRecord(sequence: row["sequence"], record: record)
                }
            }
        }
    }

    public func keys(writtenBy writer: UInt32, in account: AccountID, after: Timestamp?, through: Timestamp, limit: Int) throws -> [SyncRecord.Key] {
        // `after` may carry another replica's id: compared as a whole timestamp.
        let start = after ?? Timestamp(time: .min, counter: 0, replica: 0)
        return try run {
            try queue.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT model, instance, property, time, counter FROM records INDEXED BY records_by_writer
                        WHERE account = ?1 AND replica = ?2
                          AND (time, counter, replica) \(after == nil ? ">=" : ">") (?3, ?4, ?5)
                          AND (time, counter, replica) <= (?6, ?7, ?8)
                        ORDER BY time, counter LIMIT ?9
                        """,
                    arguments: [
                        account.rawValue, Int64(writer), start.time, Int64(start.counter), Int64(start.replica),
                        through.time, Int64(through.counter), Int64(through.replica), max(0, limit)
                    ])
                return try rows.map { row in
                    guard let counter = UInt32(exactly: row["counter"] as Int64) else {
                        throw SyncServerError.storageFailed("a stored timestamp is out of range")
                    }
                    return SyncRecord.Key(
                        path: Path(model: row["model"], instance: row["instance"], property: row["property"]),
                        timestamp: Timestamp(time: row["time"], counter: counter, replica: writer))
                }
            }
        }
    }

    public func compactionHorizon(of account: AccountID) throws -> Int64 {
        try run {
            try queue.read { db in
                guard let horizon = try Int64.fetchOne(db, sql: "SELECT compacted_through FROM accounts WHERE id = ?", arguments: [account.rawValue]) else {
                    throw SyncServerError.unknownAccount(account)
                }
                return horizon
            }
        }
    }

    public func compactStep(of account: AccountID, through end: Int64, batchSize: Int) throws -> CompactionStep {
        try run {
            var step = CompactionStep(horizon: 0, removed: 0)
            try queue.inTransaction(.immediate) { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT compacted_through, last_sequence FROM accounts WHERE id = ?", arguments: [account.rawValue]) else {
                    throw SyncServerError.unknownAccount(account)
                }
                let start: Int64 = row["compacted_through"]
                let (batchEnd, overflow) = start.addingReportingOverflow(Int64(max(1, batchSize)))
                let stepEnd = min(end, row["last_sequence"], overflow ? .max : batchEnd)
                step.horizon = start
                guard stepEnd > start else { return .commit }
                // Each record of the step meets the records of its path and writer up to the
                // step's end (at most one before the step: the one kept so far); the older
                // of each pair goes, which leaves the newest of each. The path's index finds
                // them: without `INDEXED BY` SQLite read every record up to the step's end for
                // each record of the step (10^6 records did not compact in 10 minutes).
                let older = try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT CASE WHEN o.time < n.time OR (o.time = n.time AND o.counter < n.counter) THEN o.sequence ELSE n.sequence END
                        FROM records n JOIN records o INDEXED BY records_by_key
                            ON o.account = n.account AND o.model = n.model AND o.instance = n.instance AND o.property = n.property AND o.replica = n.replica
                        WHERE n.account = ?1 AND n.sequence > ?2 AND n.sequence <= ?3 AND o.sequence <= ?3 AND o.sequence <> n.sequence
                        """, arguments: [account.rawValue, start, stepEnd])
                let remove = try db.cachedStatement(sql: "DELETE FROM records WHERE account = ? AND sequence = ?")
                for sequence in older {
                    try remove.execute(arguments: [account.rawValue, sequence])
                }
                try db.execute(sql: "UPDATE accounts SET compacted_through = ? WHERE id = ?", arguments: [stepEnd, account.rawValue])
                step = CompactionStep(horizon: stepEnd, removed: older.count)
                return .commit
            }
            return step
        }
    }

    public func enqueue(_ request: CommandRelayRequest, in account: AccountID) throws -> Int64 {
        try run {
            try queue.write { db in
                try db.execute(sql: "UPDATE accounts SET last_command = last_command + 1 WHERE id = ?", arguments: [account.rawValue])
                guard db.changesCount == 1,
                    let number = try Int64.fetchOne(db, sql: "SELECT last_command FROM accounts WHERE id = ?", arguments: [account.rawValue])
                else {
                    throw SyncServerError.unknownAccount(account)
                }
                try db.execute(
                    sql: "INSERT INTO commands(account, number, sender, target, message) VALUES (?, ?, ?, ?, ?)",
                    arguments: [account.rawValue, number, Int64(request.sender), Int64(request.target), request.message])
                return number
            }
        }
    }

    public func waitingCommands(for targets: [UInt32], in account: AccountID, limit: Int) throws -> [RelayedCommand] {
        try run {
            try queue.read { db in
                let placeholders = Array(repeating: "?", count: targets.count).joined(separator: ", ")
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT number, sender, target, message FROM commands
                        WHERE account = ? AND response IS NULL AND target IN (\(placeholders)) ORDER BY id LIMIT ?
                        """, arguments: StatementArguments([account.rawValue] + targets.map { Int64($0) } + [Int64(max(0, limit))]))
                return try rows.map { row in
                    guard let sender = UInt32(exactly: row["sender"] as Int64), let target = UInt32(exactly: row["target"] as Int64) else {
                        throw SyncServerError.storageFailed("a stored replica id is out of range")
                    }
                    return RelayedCommand(id: row["number"], sender: sender, target: target, message: row["message"])
                }
            }
        }
    }

    public func answer(_ id: Int64, by replica: UInt32, response: Data, in account: AccountID) throws {
        try run {
            try queue.write { db in
                guard
                    try Bool.fetchOne(
                        db, sql: "SELECT 1 FROM commands WHERE account = ? AND number = ? AND target = ?",
                        arguments: [account.rawValue, id, Int64(replica)]) != nil
                else {
                    throw SyncServerError.unknownCommand(id)
                }
                try db.execute(
                    sql: "UPDATE commands SET response = ? WHERE account = ? AND number = ? AND response IS NULL",
                    arguments: [response, account.rawValue, id])
            }
        }
    }

    public func response(to id: Int64, in account: AccountID) throws -> Data? {
        try run {
            try queue.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT response FROM commands WHERE account = ? AND number = ?", arguments: [account.rawValue, id]) else {
                    throw SyncServerError.unknownCommand(id)
                }
                return row["response"] as Data?
            }
        }
    }

    public func latestSequence(of account: AccountID) throws -> Int64 {
        try run {
            try queue.read { db in
                try Int64.fetchOne(db, sql: "SELECT last_sequence FROM accounts WHERE id = ?", arguments: [account.rawValue]) ?? 0
            }
        }
    }

    public func accountSummaries() throws -> [AccountSummary] {
        try run {
            try queue.read { db in
                let sql = "SELECT id, name, last_sequence, (SELECT COUNT(*) FROM records WHERE account = accounts.id) AS stored FROM accounts ORDER BY id"
                return try Row.fetchAll(db, sql: sql).map { row in
                    AccountSummary(id: AccountID(rawValue: row["id"]), name: row["name"], latestSequence: row["last_sequence"], recordsStored: row["stored"])
                }
            }
        }
    }

    /// Runs a database access; SQLite's errors become ``SyncServerError/storageFailed(_:)``.
    func run<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SyncServerError {
            throw error
        } catch {
            throw SyncServerError.storageFailed(String(describing: error))
        }
    }
}
