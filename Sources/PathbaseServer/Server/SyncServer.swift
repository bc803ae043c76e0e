import Foundation
import Pathbase

/// The transport-free core of a sync server: accounts, authenticated push and pull on
/// per-account record logs, and the clock-drift check. HTTP routes decode a request, call
/// it, and encode its answer.
///
/// ```swift
/// let server = SyncServer(store: try SQLiteSyncServerStore(path: "server.sqlite"))
/// let token = try await server.addAccount(named: "alice") // shown once, stored hashed
/// let pushed = try await server.push(PushRequest(replica: 1, records: records), token: token)
/// let page = try await server.pull(PullRequest(after: 0, limit: 500), token: token)
/// ```
///
/// **Push** stores each record once per account (keyed by path and timestamp) and
/// acknowledges it, also when it was stored by an earlier push; a repeated push changes
/// nothing. It rejects, each with a reason the client shows: records whose physical time
/// lies more than ``maximumClockDrift`` ahead of the server's clock, records under the
/// path replicas reserve for their own state, records of a model outside ``knownModels``
/// (when given; a model's description in a file's catalog counts as its model's), records
/// stamped before 1970, and a different value for a key already stored, and records whose
/// value does not match its type or whose path breaks the exchange contract. A push that
/// claims a watermark (`PushRequest.continuity`) and does not continue from what the server
/// holds under its replica's id is refused whole (`PushResponse.forked`): another file
/// writes under that id. **Pull** returns an account's records after a sequence number, in the order
/// they were stored, at most ``maximumPageSize`` at once.
///
/// Safe to use from any thread.
public final class SyncServer: Sendable {

    /// Where accounts and records are kept.
    public let store: any SyncServerStore

    /// How far ahead of the server's clock a record's time may lie, in seconds; 5 minutes
    /// by default.
    public let maximumClockDrift: TimeInterval

    /// The most records one push may carry.
    public let maximumPushSize: Int

    /// The most records one pull returns.
    public let maximumPageSize: Int

    /// The largest encoded value of one record, in bytes; a larger one is rejected with a
    /// reason, the others of its push are stored.
    public let maximumValueSize: Int

    /// The model ids the server accepts records of; `nil` for any. A record of another
    /// model is rejected with a reason (an app version the server was not set up for, or
    /// a forged path), the others of its push are stored.
    public let knownModels: Set<ModelKey>?

    /// Requests and pulls counted since the server started, for ``metrics()``.
    public let activity = SyncServerActivity()

    /// The live connections of this process, told of each account's new records.
    public let changes = AccountChanges()

    /// The hashes of the asset uploads in progress on this process.
    let uploadHashes = AssetUploadHashes()

    private let now: @Sendable () -> Date

    /// Creates a server over a store.
    ///
    /// - Parameters:
    ///   - store: Where accounts and records are kept.
    ///   - maximumClockDrift: How far ahead of `now` a record's time may lie.
    ///   - maximumPushSize: The most records one push may carry.
    ///   - maximumPageSize: The most records one pull returns.
    ///   - maximumValueSize: The largest encoded value of one record, in bytes (1 MB).
    ///   - knownModels: The model ids accepted; `nil` for any.
    ///   - now: The server's clock; the system clock by default.
    public init(
        store: any SyncServerStore, maximumClockDrift: TimeInterval = 300, maximumPushSize: Int = 1000, maximumPageSize: Int = 1000, maximumValueSize: Int = 1 << 20, knownModels: Set<ModelKey>? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.maximumValueSize = maximumValueSize
        self.knownModels = knownModels
        self.maximumClockDrift = maximumClockDrift
        self.maximumPushSize = maximumPushSize
        self.maximumPageSize = maximumPageSize
        self.now = now
    }

    /// Creates an account and returns its bearer token, which only its hash is kept of.
    ///
    /// ```swift
    /// let token = try await server.addAccount(named: "alice")
    /// ```
    public func addAccount(named name: String) async throws -> String {
        guard (1 ... 100).contains(name.count) else { throw SyncServerError.invalidAccountName(name) }
        let token = AccessToken.make()
        _ = try await store.addAccount(name: name, tokenHash: AccessToken.hash(token))
        return token
    }

    /// Stores a replica's records in the token's account and answers for each.
    public func push(_ request: PushRequest, token: String) async throws -> PushResponse {
        let account = try await authenticate(token)
        guard request.records.count <= maximumPushSize else {
            throw SyncServerError.tooManyRecords(count: request.records.count, maximum: maximumPushSize)
        }
        let serverTime = now()
        let latest = serverTime.addingTimeInterval(maximumClockDrift)
        var response = PushResponse(acknowledged: [])
        var accepted: [SyncRecord] = []
        for record in request.records {
            if let reason = rejection(of: record, serverTime: serverTime, latest: latest) {
                response.rejected.append(.init(key: record.key, reason: reason))
            } else {
                accepted.append(record)
            }
        }
        if let continuity = request.continuity, let forked = try await forkReason(of: request, claiming: continuity, in: account) {
            return PushResponse(acknowledged: [], forked: forked)
        }
        let outcomes = try await store.append(accepted, to: account)
        var newest: Int64?
        for (record, outcome) in zip(accepted, outcomes) {
            switch outcome {
            case .appended(let sequence):
                newest = max(newest ?? sequence, sequence)
                response.acknowledged.append(record.key)
            case .alreadyStored:
                response.acknowledged.append(record.key)
            case .conflicting:
                response.rejected.append(.init(key: record.key, reason: "The server holds another value with the same path and timestamp (\(record.key)); timestamps must be unique per write"))
            }
        }
        if let newest { changes.publish(cursor: newest, for: account) }
        return response
    }

    /// Returns one page of the token's account's records after a cursor.
    public func pull(_ request: PullRequest, token: String) async throws -> PullResponse {
        let account = try await authenticate(token)
        guard request.after >= 0, request.limit >= 1 else {
            throw SyncServerError.invalidPull(after: request.after, limit: request.limit)
        }
        let limit = min(request.limit, maximumPageSize)
        // One more than asked tells whether more follow.
        let page = try await store.records(of: account, after: request.after, limit: limit + 1)
        let records = page.prefix(limit)
        let cursor = records.last?.sequence ?? request.after
        let hasMore = page.count > limit
        // The log's last sequence number is the progress's end (a cursor jumps over the gaps
        // compaction leaves): the last page's cursor when nothing follows, one primary-key
        // read otherwise.
        let total = hasMore ? max(cursor, try await store.latestSequence(of: account)) : cursor
        let response = PullResponse(records: records.map(\.record), cursor: cursor, hasMore: hasMore, total: total)
        if let replica = request.replica {
            activity.notePull(account: account, replica: replica, cursor: response.cursor)
        }
        return response
    }

    /// The server's metrics: requests counted since it started, the store's accounts and
    /// records, and how many records each account's replicas have not pulled yet.
    ///
    /// ```swift
    /// let report = try await server.metrics()
    /// print(report.recordsStored, report.accounts.map(\.lag))
    /// ```
    public func metrics() async throws -> MetricsReport {
        let summaries = try await store.accountSummaries()
        let accounts = summaries.map { summary in
            let replicas = activity.pulledCursors(of: summary.id)
                .map { MetricsReport.Replica(replica: $0.key, pulledCursor: $0.value, lag: max(0, summary.latestSequence - $0.value)) }
                .sorted { $0.replica < $1.replica }
            return MetricsReport.Account(
                name: summary.name, latestCursor: summary.latestSequence, recordsStored: summary.recordsStored ?? summary.latestSequence,
                lag: replicas.map(\.lag).max(), replicas: replicas)
        }
        return MetricsReport(
            requests: activity.requestCounts,
            accountCount: summaries.count,
            recordsStored: accounts.reduce(0) { $0 + $1.recordsStored },
            accounts: accounts)
    }

    /// Why a push does not continue from what the server holds under its replica's id, or
    /// `nil` when it does. The replica claims the watermark through which its own records
    /// were answered; every record the server holds under the id after it, up to the newest
    /// own record of the push, must be in the push (a retry of a push whose answer was lost
    /// sends them again). One that is not was written by another file under the same id: a
    /// copy of the database, or a backup restored over it, which has just written records
    /// the id's counter contributions and set additions would confuse with the other's. The
    /// whole push is refused, nothing stored, and the replica takes a new id.
    private func forkReason(of request: PushRequest, claiming continuity: PushRequest.Continuity, in account: AccountID) async throws -> String? {
        let watermark = continuity.acknowledgedThrough
        let own = request.records.filter { record in
            record.timestamp.replica == request.replica && watermark.map { record.timestamp > $0 } ?? true
        }.map(\.key)
        guard let newest = own.max(by: { $0.timestamp < $1.timestamp }) else { return nil }
        let sent = Set(own)
        let held = try await store.keys(writtenBy: request.replica, in: account, after: watermark, through: newest.timestamp, limit: sent.count + 1)
        guard let missing = held.first(where: { !sent.contains($0) }) else { return nil }
        return
            "The server holds a record of replica \(request.replica) (\(missing)) that this push does not continue from: another file — a copy of this database, or a backup restored over it — writes under the same replica id. Nothing of this push was stored; take a new replica id and push again"
    }

    /// The token's account: the one ``SyncRoutes`` already looked up for this request (see
    /// ``admittedAccount``), or the store's answer.
    func authenticate(_ token: String) async throws -> AccountID {
        if let admitted = Self.admittedAccount, admitted.token == token { return admitted.account }
        guard let account = try await store.account(tokenHash: AccessToken.hash(token)) else { throw SyncServerError.unauthorized }
        return account
    }

    /// A token and the account the store gave for it.
    struct AdmittedAccount: Sendable {
        let token: String
        let account: AccountID
    }

    /// The account the routes authenticated for the request this task serves: the routes
    /// look the token up before reading the body (401 first), and the server's call within
    /// the same request then takes it from here instead of a second store lookup.
    @TaskLocal static var admittedAccount: AdmittedAccount?

    private func rejection(of record: SyncRecord, serverTime: Date, latest: Date) -> String? {
        if record.path.model == Replica.stateModel {
            return "The path \(record.path) is reserved for a replica's own state"
        }
        if record.valueJSON.count > maximumValueSize {
            return "The value at \(record.key) is \(record.valueJSON.count) bytes encoded; the server takes values of at most \(maximumValueSize) bytes"
        }
        // A model's description in a file's catalog goes with the model it describes.
        let model = record.path.model == ModelDescription.catalogModel ? record.path.instance : record.path.model
        if let knownModels, !knownModels.contains(model) {
            return "The model \(model) of the record at \(record.key) is not known to this server; it accepts \(knownModels.count) models (see pathbase serve --models)"
        }
        do {
            // A value that does not match its type, or a path no database writes, would stop
            // every replica's pull at it: refused here, before it is stored.
            _ = try record.record()
        } catch {
            return "The record at \(record.key) is invalid: \(error.localizedDescription)"
        }
        if record.timestamp.time < 0 {
            return "The record at \(record.key) is stamped before 1970, which no clock writes; check this device's date and time"
        }
        if record.timestamp.date > latest {
            let ahead = Int(record.timestamp.date.timeIntervalSince(serverTime).rounded(.up))
            return "The record's clock is \(ahead) s ahead of the server's (at most \(Int(maximumClockDrift)) s allowed); check this device's date and time, then retry"
        }
        return nil
    }
}
