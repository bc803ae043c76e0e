import Logging
import PostgresNIO

/// The PostgreSQL tables of ``PostgresSyncServerStore``, created and migrated by the
/// server on start.
///
/// ```swift
/// try await PostgresSchema.migrate(client, logger: logger) // what the store's init does
/// ```
///
/// Versions are numbered from 1 in `pathbase_schema`; each start applies the versions the
/// database lacks, in one transaction under an advisory lock, so that several server
/// processes starting together migrate once. A database with a version newer than this
/// program knows is refused, untouched.
///
/// - `accounts`: one row per account; `last_sequence` is its log's last number, and the row
///   is the lock that serializes the account's appends.
/// - `records`: the records, keyed by (account, sequence) for pulls, with a unique index on
///   (account, path, timestamp) that finds a pushed record already stored.
/// - `commands` (version 2): commands relayed between an account's replicas; a partial
///   index on (account, target, id) of the unanswered ones serves a replica's inbox. Since
///   version 4 a command's `number` counts the account's commands (`accounts.last_command`),
///   so that no account learns how many the others sent.
/// - `assets` and `asset_chunks` (version 3): asset content per account, in the chunks it
///   was uploaded in (`bytea` rows keyed by their first byte), and each asset's size, bytes
///   received and whether it is complete (checked against its hash).
/// - `pathbase_append` (version 5): a function that appends a push in one statement
///   (``PostgresSyncServerStore/append(_:to:)``), under the account's row lock; replaced in
///   version 6 by one whose cost does not grow with the account.
/// - `accounts.compacted_through` (version 7): the sequence number through which the
///   account's log is compacted (``PostgresSyncServerStore/compactStep(of:through:batchSize:)``).
/// - `records_by_writer` (version 8): the records by replica id, for the check that a push
///   continues from what the server holds of its replica
///   (``PostgresSyncServerStore/keys(writtenBy:in:after:through:limit:)``).
public enum PostgresSchema {

    /// The versions, in order: each a list of statements.
    static let versions: [[String]] = [
        [
            """
            CREATE TABLE accounts (
                id BIGSERIAL PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                token_hash BYTEA NOT NULL UNIQUE,
                last_sequence BIGINT NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE records (
                account BIGINT NOT NULL REFERENCES accounts(id),
                sequence BIGINT NOT NULL,
                model BIGINT NOT NULL, instance BIGINT NOT NULL, property BIGINT NOT NULL,
                time BIGINT NOT NULL, counter BIGINT NOT NULL, replica BIGINT NOT NULL,
                type TEXT NOT NULL, value BYTEA NOT NULL,
                PRIMARY KEY (account, sequence))
            """,
            """
            CREATE UNIQUE INDEX records_by_key
                ON records (account, model, instance, property, time, counter, replica)
            """
        ],
        [
            """
            CREATE TABLE commands (
                id BIGSERIAL PRIMARY KEY,
                account BIGINT NOT NULL REFERENCES accounts(id),
                sender BIGINT NOT NULL, target BIGINT NOT NULL,
                message BYTEA NOT NULL, response BYTEA)
            """,
            """
            CREATE INDEX waiting_commands ON commands (account, target, id) WHERE response IS NULL
            """
        ],
        [
            """
            CREATE TABLE assets (
                account BIGINT NOT NULL REFERENCES accounts(id),
                hash TEXT NOT NULL,
                size BIGINT NOT NULL,
                received BIGINT NOT NULL DEFAULT 0,
                complete BOOLEAN NOT NULL DEFAULT false,
                PRIMARY KEY (account, hash))
            """,
            """
            CREATE TABLE asset_chunks (
                account BIGINT NOT NULL,
                hash TEXT NOT NULL,
                start BIGINT NOT NULL,
                content BYTEA NOT NULL,
                PRIMARY KEY (account, hash, start),
                FOREIGN KEY (account, hash) REFERENCES assets (account, hash) ON DELETE CASCADE)
            """,
            // Asset content is mostly compressed already (audio, images): stored out of line
            // without trying to compress it again.
            """
            ALTER TABLE asset_chunks ALTER COLUMN content SET STORAGE EXTERNAL
            """
        ],
        // Command numbers per account: the sequence shared by all accounts told an account
        // how many commands the others sent. Commands stored before keep their number (a
        // sender's ticket still finds its answer); each account's count continues after
        // its largest one.
        [
            "ALTER TABLE accounts ADD COLUMN last_command BIGINT NOT NULL DEFAULT 0",
            "UPDATE accounts SET last_command = coalesce((SELECT max(id) FROM commands WHERE commands.account = accounts.id), 0)",
            "ALTER TABLE commands ADD COLUMN number BIGINT",
            "UPDATE commands SET number = id",
            "ALTER TABLE commands ALTER COLUMN number SET NOT NULL",
            "CREATE UNIQUE INDEX commands_by_number ON commands (account, number)"
        ],
        // Appends in one round trip (issue 49): the function holds the account's row lock
        // only while it runs on the server, instead of across four round trips.
        [PostgresAppendFunction.definition],
        // The same function with each pushed record looked up by an index probe (issue 49):
        // replaces version 5's, whose joins read every record of the account.
        [PostgresAppendFunction.definition],
        // Compaction (issue 49): how far each account's log is compacted.
        ["ALTER TABLE accounts ADD COLUMN compacted_through BIGINT NOT NULL DEFAULT 0"],
        // A push is checked against what the server holds of its replica's id (SyncServer's
        // continuity check): one range of this index per push.
        ["CREATE INDEX records_by_writer ON records (account, replica, time, counter)"]
    ]

    /// The schema version this program writes.
    public static var currentVersion: Int { versions.count }

    /// An arbitrary constant naming the advisory lock that migrations take.
    private static let migrationLock: Int64 = 0x7061_7468_6261_7365 // "pathbase"

    /// Creates the tables, or brings them to ``currentVersion``.
    public static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        do {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
                try await connection.query("CREATE TABLE IF NOT EXISTS pathbase_schema (version INTEGER NOT NULL)", logger: logger)
                let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM pathbase_schema", logger: logger)
                let found = Int(try await rows.values(Int32.self).first ?? 0)
                guard found <= currentVersion else {
                    throw PostgresStoreError.newerSchema(found: found, known: currentVersion)
                }
                for (index, statements) in versions.enumerated() where index + 1 > found {
                    for statement in statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO pathbase_schema (version) VALUES (\(Int32(index + 1)))", logger: logger)
                    logger.info("migrated the PostgreSQL store", metadata: ["version": "\(index + 1)"])
                }
            }
        } catch {
            throw PostgresStoreError.wrapping(error)
        }
    }
}
