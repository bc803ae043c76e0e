import Foundation
import Logging
import Pathbase
import PathbaseServer
import PostgresNIO

/// A `SyncServerStore` in PostgreSQL: for servers with many accounts, or several
/// `pathbase serve` processes that share one database.
///
/// ```swift
/// let store = try await PostgresSyncServerStore(url: "postgres://pathbase@127.0.0.1:5432/pathbase")
/// let server = SyncServer(store: store)
/// // … serve …
/// await store.close()
/// ```
///
/// The store keeps a pool of connections (postgres-nio's `PostgresClient`) and creates or
/// migrates its tables when it opens (``PostgresSchema``). Every append is one transaction
/// that first locks the account's row: appends to one account are serialized across every
/// server process, so an account's sequence numbers become visible in order, and a reader
/// that has seen number *n* never later finds a record numbered below *n* that it did not
/// see. Appends to different accounts run in parallel. A push is stored with one statement,
/// whatever its size: the `pathbase_append` function (`PostgresAppendFunction`) looks up,
/// numbers, inserts and notifies on the server, so the lock is held for no round trip.
///
/// While PostgreSQL cannot be reached (it restarts, say), every call fails within
/// `operationTimeout` with `SyncServerError.storageUnavailable(_:)` (HTTP 503: clients
/// retry) instead of waiting for the pool to reconnect; the pool reconnects by itself when
/// the database is back. It also keeps the commands relayed between an account's
/// replicas (`CommandQueueStore`) and asset content (`AssetContentStore`, in `bytea`
/// chunks). Safe to use from any thread and any process.
public final class PostgresSyncServerStore: CommandQueueStore, AssetContentStore {

    let client: PostgresClient
    private let running: Task<Void, Never>
    let logger: Logger

    /// How long one call waits for PostgreSQL, a connection included, in seconds.
    public let operationTimeout: Double

    /// Connects to the database at a `postgres://user[:password]@host[:port]/database` URL
    /// and creates or migrates the store's tables.
    ///
    /// Throws ``PostgresStoreError`` if the URL is invalid, the server cannot be reached
    /// within `connectTimeout` seconds, or the schema is newer than this program knows.
    /// Afterwards, a call that gets no answer within `operationTimeout` seconds throws
    /// `SyncServerError.storageUnavailable(_:)`.
    public convenience init(url: String, connectTimeout: Double = 10, operationTimeout: Double = 10, logger: Logger = Logger(label: "pathbase.postgres")) async throws {
        try await self.init(configuration: try PostgresURL.configuration(from: url), connectTimeout: connectTimeout, operationTimeout: operationTimeout, logger: logger)
    }

    /// Connects with a postgres-nio client configuration and creates or migrates the store's
    /// tables; see ``init(url:connectTimeout:operationTimeout:logger:)``.
    public init(configuration: PostgresClient.Configuration, connectTimeout: Double = 10, operationTimeout: Double = 10, logger: Logger = Logger(label: "pathbase.postgres")) async throws {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.operationTimeout = operationTimeout
        running = Task { await client.run() }
        do {
            try await withDeadline(seconds: connectTimeout) {
                try await PostgresSchema.migrate(client, logger: logger)
            }
        } catch {
            running.cancel()
            await running.value
            throw error
        }
    }

    /// Closes the store's connections and waits until they are closed; the store must not
    /// be used afterwards. A store that is released without it closes them in the background.
    public func close() async {
        running.cancel()
        await running.value
    }

    deinit {
        running.cancel()
    }

    public func addAccount(name: String, tokenHash: [UInt8]) async throws -> AccountID {
        try await run { [self] in
            let rows = try await client.query(
                """
                INSERT INTO accounts (name, token_hash) VALUES (\(name), \(ByteBuffer(bytes: tokenHash)))
                ON CONFLICT (name) DO NOTHING RETURNING id
                """, logger: logger)
            guard let id = try await rows.values(Int64.self).first else {
                throw SyncServerError.accountExists(name)
            }
            return AccountID(rawValue: id)
        }
    }

    public func account(tokenHash: [UInt8]) async throws -> AccountID? {
        try await run { [self] in
            let rows = try await client.query("SELECT id FROM accounts WHERE token_hash = \(ByteBuffer(bytes: tokenHash))", logger: logger)
            return try await rows.values(Int64.self).first.map(AccountID.init(rawValue:))
        }
    }

    public func append(_ records: [SyncRecord], to account: AccountID) async throws -> [AppendOutcome] {
        let logger = logger
        return try await run { [self] in
            guard !records.isEmpty else {
                let rows = try await client.query("SELECT 1 FROM accounts WHERE id = \(account.rawValue)", logger: logger)
                guard try await rows.values(Int32.self).first != nil else { throw SyncServerError.unknownAccount(account) }
                return []
            }
            // One statement (one round trip, its own transaction): pathbase_append locks the
            // account's row, which serializes appends to this account across every connection
            // and process until it commits, so numbers are taken and made visible in the same
            // order (PostgresAppendFunction).
            let keys = KeyColumns(records)
            let types = records.map(\.valueType)
            let values = records.map { ByteBuffer(bytes: $0.valueJSON) }
            let rows = try await client.query(
                """
                SELECT o_sequence, o_appended, o_same FROM pathbase_append(\(account.rawValue),
                    \(keys.models)::bigint[], \(keys.instances)::bigint[], \(keys.properties)::bigint[],
                    \(keys.times)::bigint[], \(keys.counters)::bigint[], \(keys.replicas)::bigint[],
                    \(types)::text[], \(values)::bytea[])
                """, logger: logger)
            var outcomes: [AppendOutcome] = []
            outcomes.reserveCapacity(records.count)
            for try await (sequence, appended, same) in rows.decode((Int64, Bool, Bool).self) {
                outcomes.append(appended ? .appended(sequence: sequence) : same ? .alreadyStored(sequence: sequence) : .conflicting)
            }
            guard !outcomes.isEmpty else { throw SyncServerError.unknownAccount(account) }
            guard outcomes.count == records.count else {
                throw SyncServerError.storageFailed("pathbase_append answered \(outcomes.count) outcomes for \(records.count) records")
            }
            return outcomes
        }
    }

    public func records(of account: AccountID, after sequence: Int64, limit: Int) async throws -> [SequencedRecord] {
        let limit = Int64(max(0, limit))
        // Without compaction an account's log has no gaps, so the page is the numbers after
        // the cursor: asked as that range, the query reads only the page's rows whatever
        // plan PostgreSQL picks. Asked open-ended, a plan made from statistics that lag
        // behind a growing account read every record after the cursor and sorted them
        // (85 ms a page at 10^5 records, against 1 ms).
        let first = try await page(of: account, after: sequence, through: Self.adding(limit, to: sequence), limit: limit)
        guard first.count < limit else { return first }
        // A short page: the end of the log, or the gaps compaction left before its horizon.
        let horizon = try await compactionHorizon(of: account)
        guard sequence < horizon else {
            // The end of the log, where the open-ended query reads few rows.
            return try await page(of: account, after: sequence, through: Int64.max, limit: limit)
        }
        // Every record up to the horizon was committed before it moved, and none is
        // appended among them, so ranges up to it can be read one after another without
        // skipping a record. They widen fourfold while the gaps leave pages short. (The
        // first page is read again: it may have been read before the horizon moved.)
        var page: [SequencedRecord] = []
        var scanned = sequence
        var window = limit
        while page.count < limit && scanned < horizon {
            let stop = min(Self.adding(window, to: scanned), horizon)
            page += try await self.page(of: account, after: scanned, through: stop, limit: limit - Int64(page.count))
            scanned = stop
            window = window > Int64.max / 4 ? Int64.max : window * 4
        }
        guard page.count < limit else { return page }
        // After the horizon: one statement, as at the end of the log.
        return page + (try await self.page(of: account, after: scanned, through: Int64.max, limit: limit - Int64(page.count)))
    }

    /// `a + b`, or `Int64.max` when it overflows.
    private static func adding(_ a: Int64, to b: Int64) -> Int64 {
        let (sum, overflow) = b.addingReportingOverflow(a)
        return overflow ? Int64.max : sum
    }

    /// Up to `limit` records of `account` numbered after `sequence` and up to `end`, in order.
    private func page(of account: AccountID, after sequence: Int64, through end: Int64, limit: Int64) async throws -> [SequencedRecord] {
        try await run { [self] in
            let rows = try await client.query(
                """
                SELECT sequence, model, instance, property, time, counter, replica, type, value FROM records
                WHERE account = \(account.rawValue) AND sequence > \(sequence) AND sequence <= \(end) ORDER BY sequence LIMIT \(limit)
                """, logger: logger)
            var page: [SequencedRecord] = []
            for try await row in rows.decode((Int64, Int64, Int64, Int64, Int64, Int64, Int64, String, Data).self) {
                page.append(try Self.sequencedRecord(row))
            }
            return page
        }
    }

    public func keys(writtenBy writer: UInt32, in account: AccountID, after: Timestamp?, through: Timestamp, limit: Int) async throws -> [SyncRecord.Key] {
        // `after` may carry another replica's id: compared as a whole timestamp.
        let start = after ?? Timestamp(time: .min, counter: 0, replica: 0)
        let inclusive = after == nil
        let (startCounter, startReplica) = (Int64(start.counter), Int64(start.replica))
        let (endCounter, endReplica) = (Int64(through.counter), Int64(through.replica))
        let limit = Int64(max(0, limit))
        return try await run { [self] in
            let rows = try await client.query(
                """
                SELECT model, instance, property, time, counter FROM records
                WHERE account = \(account.rawValue) AND replica = \(Int64(writer))
                  AND ((time, counter, replica) > (\(start.time), \(startCounter), \(startReplica)) OR (\(inclusive) AND (time, counter, replica) = (\(start.time), \(startCounter), \(startReplica))))
                  AND (time, counter, replica) <= (\(through.time), \(endCounter), \(endReplica))
                ORDER BY time, counter LIMIT \(limit)
                """, logger: logger)
            var keys: [SyncRecord.Key] = []
            for try await (model, instance, property, time, counter) in rows.decode((Int64, Int64, Int64, Int64, Int64).self) {
                guard let counter = UInt32(exactly: counter), let model = Int(exactly: model), let instance = Int(exactly: instance), let property = Int(exactly: property) else {
                    throw SyncServerError.storageFailed("a stored path or timestamp is out of range")
                }
                keys.append(SyncRecord.Key(path: Path(model: model, instance: instance, property: property), timestamp: Timestamp(time: time, counter: counter, replica: writer)))
            }
            return keys
        }
    }

    public func accountSummaries() async throws -> [AccountSummary] {
        try await run { [self] in
            let rows = try await client.query(
                "SELECT id, name, last_sequence, (SELECT count(*) FROM records WHERE account = accounts.id) FROM accounts ORDER BY id",
                logger: logger)
            var summaries: [AccountSummary] = []
            for try await (id, name, last, stored) in rows.decode((Int64, String, Int64, Int64).self) {
                summaries.append(AccountSummary(id: AccountID(rawValue: id), name: name, latestSequence: last, recordsStored: stored))
            }
            return summaries
        }
    }

    private static func sequencedRecord(_ row: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, String, Data)) throws -> SequencedRecord {
        let (sequence, model, instance, property, time, counter, replica, type, value) = row
        guard let counter = UInt32(exactly: counter), let replica = UInt32(exactly: replica),
            let model = Int(exactly: model), let instance = Int(exactly: instance), let property = Int(exactly: property)
        else {
            throw SyncServerError.storageFailed("a stored path or timestamp is out of range")
        }
        let record = SyncRecord(
            path: Path(model: model, instance: instance, property: property),
            timestamp: Timestamp(time: time, counter: counter, replica: replica),
            valueType: type, valueJSON: value)
        return SequencedRecord(sequence: sequence, record: record)
    }

    /// Runs a database access within ``operationTimeout``; PostgreSQL's errors become
    /// `SyncServerError.storageFailed(_:)`, or `SyncServerError.storageUnavailable(_:)`
    /// when it cannot be reached.
    func run<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        do {
            return try await withDeadline(seconds: operationTimeout, body)
        } catch {
            throw PostgresStoreError.syncServerError(error)
        }
    }
}

/// The key columns of records, one array per column, for `unnest`.
private struct KeyColumns {
    var models: [Int64] = []
    var instances: [Int64] = []
    var properties: [Int64] = []
    var times: [Int64] = []
    var counters: [Int64] = []
    var replicas: [Int64] = []

    init(_ records: [SyncRecord]) {
        for record in records {
            models.append(Int64(record.path.model))
            instances.append(Int64(record.path.instance))
            properties.append(Int64(record.path.property))
            times.append(record.timestamp.time)
            counters.append(Int64(record.timestamp.counter))
            replicas.append(Int64(record.timestamp.replica))
        }
    }
}
