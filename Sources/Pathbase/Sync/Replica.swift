import Foundation

/// One database taking part in synchronization through a sync server: it pushes its own
/// records, pulls everyone else's, and shows where each of its writes stands.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "notes.sqlite")
/// let replica = try Replica(database: database, transport: transport)
/// Note.create(in: database, id: 1, text: "Hello")
/// let report = try await replica.sync() // push, then pull until caught up
/// for entry in replica.rejectedRecords() { print(entry) }
/// ```
///
/// **Identity.** The replica id is the database's clock's id: an `SQLiteDatabase` file keeps
/// one for every open, in every process, so a file is one replica for its whole life. It is
/// stored in the database the first time a `Replica` is made for it. The database's other
/// clock ids (an explicit clock, the ids an older file was written with) are remembered
/// too, so their writes stay its own; the list grows only when such a clock appears.
///
/// **Outbox.** Every record the database writes with its own clock — through models,
/// editing contexts, undo, any wrapper, in any process or session, before or after the
/// `Replica` was made — is in the outbox until the server answers it. Records of other
/// replicas that came from an import rather than from the server are pushed once too (the
/// server keeps each path and timestamp once). Records pulled are never pushed back. An
/// entry goes
/// ``OutboxEntry/State/pending``, then ``OutboxEntry/State/acknowledged`` or
/// ``OutboxEntry/State/rejected(reason:)``. Nothing leaves silently: rejected records stay
/// listed in ``rejectedRecords()`` until ``retry(_:)`` or ``discard(_:)``. The outbox is the
/// records themselves plus a watermark stored in the database (see the state's paths), so
/// a write and its outbox entry are stored together, also across a crash.
///
/// **Push** sends pending records, oldest first, in batches of ``batchSize``; the server
/// stores each record once, so a retried push duplicates nothing. **Pull** asks for the
/// records after a server-assigned sequence number, in pages of ``pageSize``, and stores
/// each page and the new cursor in one batch: after a crash between pages the next pull
/// starts right after the last stored page. Pulled records are applied with their
/// timestamps through the database (newest wins per path, observers notified, the clock
/// moved past them).
///
/// Needs a ``HistoryDatabase`` (or a wrapper of one). Use a replica from one task at a
/// time; the database itself may be written from anywhere meanwhile.
public final class Replica {

    /// The database that is synchronized.
    public let database: any Database

    /// How the server is reached.
    public let transport: any SyncTransport

    /// The replica's id, stored in its database.
    public let id: UInt32

    /// The most records sent in one push request.
    public let batchSize: Int

    /// The most records asked for in one pull request.
    public let pageSize: Int

    /// The model id under which replicas keep their own state (their id, watermark,
    /// cursor and rejected records): never pushed, never pulled, refused by servers.
    public static var stateModel: ModelKey { ReplicaState.model }

    /// The replica's status as it changes (see ``status``): for a UI, from any thread.
    public let monitor: ReplicaMonitor

    /// Whether pulls record what this replica has seen of the others' records, so that
    /// ``Database/conflicts(of:)`` can tell its writes made after seeing others' from
    /// concurrent ones; `false` by default.
    ///
    /// ```swift
    /// let replica = try Replica(database: database, transport: transport)
    /// replica.recordsProvenance = true
    /// ```
    ///
    /// A pulled page that brings other replicas' data then stores one more record (pushed
    /// like any other; ``sync()`` pushes it before it returns), and the replica's first pull
    /// notes when it started. Every replica of an account should record it: the writes of
    /// one that does not have unknown provenance and are never listed as concurrent.
    public var recordsProvenance = false

    let history: any HistoryDatabase
    let writers: Set<UInt32>

    /// Makes a database a replica; the first time, stores its replica id in it.
    ///
    /// ```swift
    /// let replica = try Replica(database: ObservableDatabase(wrapping: InMemoryHistoryDatabase()), transport: transport)
    /// ```
    ///
    /// Throws ``ReplicaError/historyRequired(database:)`` for a database without history,
    /// ``ReplicaError/invalidLimit(_:)`` for a size below 1, and
    /// ``ReplicaError/storageFailed(_:)`` if the id cannot be stored.
    public init(database: any Database, transport: any SyncTransport, batchSize: Int = 500, pageSize: Int = 500) throws(ReplicaError) {
        guard let history = database.historyDatabase else {
            throw .historyRequired(database: String(describing: type(of: database)))
        }
        guard batchSize > 0 else { throw .invalidLimit(batchSize) }
        guard pageSize > 0 else { throw .invalidLimit(pageSize) }
        self.database = database
        self.transport = transport
        self.batchSize = batchSize
        self.pageSize = pageSize
        self.history = history
        let clock = history.clock
        let clockId = clock.replica
        let storedId: UInt32? = history.get(ReplicaState.id)
        var writers: [UInt32] = history.get(ReplicaState.writers) ?? []
        self.id = storedId ?? clockId
        // The clock's id is the database's identity (an SQLite file keeps one for every
        // open), so the list grows only when a database is written with another clock;
        // the ids a file was written with before it had an identity are adopted with it.
        var newWriters: [UInt32] = []
        for writer in [clockId] + clock.earlierReplicas where !writers.contains(writer) && !newWriters.contains(writer) {
            newWriters.append(writer)
        }
        writers += newWriters
        self.writers = Set(writers)
        self.monitor = ReplicaMonitor(ReplicaStatus())
        // The first replica of a database: what it holds that none of its ids wrote came
        // from an import (nothing was pulled yet), pushed once.
        let imported = storedId == nil ? ImportedRange.ranges(of: history.records(after: nil), excluding: self.writers) : []
        if storedId == nil || !newWriters.isEmpty {
            let id = self.id
            try Replica.store(in: history) {
                if storedId == nil { history.set(id, for: ReplicaState.id) }
                history.set(writers, for: ReplicaState.writers)
                if !imported.isEmpty { history.set(ImportedRange.merged(history.get(ReplicaState.imported) ?? [], imported), for: ReplicaState.imported) }
            }
        }
        monitor.update { $0 = storedStatus() }
    }

    // MARK: Outbox

    /// Where one of this replica's records stands, or `nil` for a record it did not write.
    ///
    /// ```swift
    /// if case .rejected(let reason) = replica.state(of: key) { print(reason) }
    /// ```
    public func state(of key: SyncRecord.Key) -> OutboxEntry.State? {
        guard isOwn(key) else { return nil }
        if let exception = exceptions.first(where: { $0.key == key }) {
            return exception.rejection.map { .rejected(reason: $0) } ?? .pending
        }
        if let through = acknowledgedThrough, key.timestamp <= through { return .acknowledged }
        return .pending
    }

    /// The records the next push sends, oldest first (retried ones first), at most `limit`.
    ///
    /// ```swift
    /// print("\(replica.pendingRecords().count) changes not yet on the server")
    /// ```
    public func pendingRecords(limit: Int = .max) -> [OutboxEntry] {
        outbox.pendingKeys(limit: limit).map { OutboxEntry(key: $0, state: .pending) }
    }

    /// The records the server refused, with its reasons, oldest first.
    ///
    /// ```swift
    /// for entry in replica.rejectedRecords() { print(entry.key, entry.state) }
    /// ```
    public func rejectedRecords() -> [OutboxEntry] {
        exceptions.compactMap { exception in
            exception.rejection.map { OutboxEntry(key: exception.key, state: .rejected(reason: $0)) }
        }.sorted { $0.key < $1.key }
    }

    /// Makes a rejected record pending again: the next push sends it unchanged (useful once
    /// the cause is gone, such as a clock that was too far ahead).
    ///
    /// ```swift
    /// try replica.retry(entry.key)
    /// ```
    public func retry(_ key: SyncRecord.Key) throws(ReplicaError) {
        try changeRejected(key) { $0.rejection = nil }
    }

    /// Gives up on a rejected record: it is no longer listed and never pushed. The local
    /// value stays until a newer write replaces it.
    ///
    /// ```swift
    /// try replica.discard(entry.key)
    /// ```
    public func discard(_ key: SyncRecord.Key) throws(ReplicaError) {
        try changeRejected(key) { _ in }
        let remaining = exceptions.filter { $0.key != key }
        try Replica.store(in: history) { history.set(remaining, for: ReplicaState.exceptions) }
    }

    // MARK: Synchronizing

    /// Pushes every pending record, then pulls until the replica has everything the server
    /// has.
    ///
    /// ```swift
    /// let report = try await replica.sync()
    /// print(report) // pushed 3 (acknowledged 3, rejected 0), pulled 7, cursor 42
    /// ```
    ///
    /// Throws what the transport throws, and ``ReplicaError``; whatever was stored before
    /// stays stored, and calling it again continues.
    @discardableResult
    public func sync() async throws -> SyncReport {
        do {
            var report = try await push()
            report.add(try await pull())
            // What the pull recorded having seen goes up now, so a sync leaves nothing pending.
            if recordsProvenance { report.add(try await push()) }
            try noteSyncSucceeded(report)
            return report
        } catch {
            noteSyncFailed(error)
            throw error
        }
    }

    /// Sends pending records in batches of ``batchSize`` until none is left and records
    /// the server's answers. With an ``AssetTransport``, each batch first uploads the
    /// content of the assets its records reference that the server lacks (see
    /// ``Replica/awaitedAssets()`` for the whole story of assets).
    @discardableResult
    public func push() async throws -> SyncReport {
        var report = SyncReport()
        report.cursor = pullCursor
        try await pushImported(into: &report)
        while true {
            let retried = exceptions.filter { $0.rejection == nil }.prefix(batchSize).map(\.key)
            let scan = scanPending(limit: batchSize - retried.count)
            let candidates = retried.compactMap(record(at:)) + scan.records
            var answered: [SyncRecord.Key: String?] = [:] // nil: acknowledged
            var outgoing: [SyncRecord] = []
            for record in candidates {
                do {
                    outgoing.append(try SyncRecord(record))
                } catch {
                    answered[SyncRecord.Key(path: record.path, timestamp: record.timestamp)] = .some("The value cannot be sent: \(error)")
                }
            }
            for key in retried where record(at: key) == nil {
                answered[key] = .some("The record is no longer in the database (pruned)")
            }
            if !outgoing.isEmpty {
                // The content of the assets they reference goes first.
                try await uploadAssets(referencedBy: candidates, into: &report)
                let response = try await transport.push(PushRequest(replica: id, records: outgoing))
                let sent = Set(outgoing.map(\.key))
                var count = 0
                for key in response.acknowledged where sent.contains(key) && answered[key] == nil {
                    answered[key] = .some(nil)
                    count += 1
                }
                for rejection in response.rejected where sent.contains(rejection.key) && answered[rejection.key] == nil {
                    answered[rejection.key] = .some(rejection.reason)
                }
                report.pushed += outgoing.count
                report.acknowledged += count
                if answered.isEmpty { throw ReplicaError.pushUnanswered(records: outgoing.count) }
            }
            report.rejected += answered.values.filter { $0 != nil }.count
            // The watermark moves past the answered prefix of the scanned records.
            var through = scan.scannedThrough
            for record in scan.records where answered[SyncRecord.Key(path: record.path, timestamp: record.timestamp)] == nil {
                through = scan.records.last { $0.timestamp < record.timestamp }?.timestamp ?? acknowledgedThrough
                break
            }
            let before = (acknowledgedThrough, exceptions)
            var updated = exceptions.filter { answered[$0.key] == nil }
            for (key, answer) in answered {
                if let reason = answer { updated.append(OutboxException(key: key, rejection: reason)) }
            }
            // Moving it past the replica's own state records alone would write a new one each time.
            let movesWatermark =
                (!candidates.isEmpty || scan.sawData)
                && (through.map { through in acknowledgedThrough.map { through > $0 } ?? true } ?? false)
            if updated != before.1 || movesWatermark {
                try Replica.store(in: history) {
                    if updated != before.1 { history.set(updated, for: ReplicaState.exceptions) }
                    if movesWatermark, let through { history.set(through, for: ReplicaState.acknowledgedThrough) }
                }
            }
            // Stop when nothing was left, or when the server answered nothing new.
            if candidates.isEmpty || (!movesWatermark && updated == before.1) { break }
            let answeredCount = answered.count
            monitor.update { $0.pendingCount = max(0, $0.pendingCount - answeredCount) }
        }
        refreshStatus()
        return report
    }

    /// Pulls pages of ``pageSize`` records until the server has no more, storing each page
    /// with its cursor in one batch; then, with an ``AssetTransport``, downloads the assets
    /// the pulled records reference that this replica lacks.
    ///
    /// With ``recordsProvenance``, a page that brings other replicas' data also records, in
    /// its batch, what this replica has now seen of theirs (one record, pushed like any
    /// other), so that ``Database/conflicts(of:)`` can tell its later writes from
    /// concurrent ones.
    @discardableResult
    public func pull() async throws -> SyncReport {
        var report = SyncReport()
        while true {
            let cursor = pullCursor
            let response = try await transport.pull(PullRequest(after: cursor, limit: pageSize, replica: id))
            var records: [Record] = []
            for incoming in response.records {
                if incoming.path.model == ReplicaState.model {
                    throw ReplicaError.undecodableRecord(key: incoming.key, reason: "the path is reserved for the replica's own state")
                }
                if writers.contains(incoming.timestamp.replica) { continue } // our own, already here
                do {
                    records.append(try incoming.record())
                } catch {
                    throw ReplicaError.undecodableRecord(key: incoming.key, reason: String(describing: error))
                }
            }
            records.sort(by: Record.chronological)
            // A late or repeated response never moves the cursor back.
            let next = max(cursor, response.cursor)
            let history = self.history
            let awaited = assetsToAwait(after: records)
            let progress = pullProgress(after: response, cursor: next)
            try Replica.store(in: history) {
                // What this replica's later writes had seen (see WriterProvenance).
                if recordsProvenance { WriterProvenance.recordSeeing(records, in: history) }
                for record in records { history.apply(record) }
                if next != cursor { history.set(next, for: ReplicaState.pullCursor) }
                if let awaited { history.set(awaited, for: ReplicaState.awaitedAssets) }
                progress.store(in: history)
            }
            monitor.update(progress.apply)
            report.pulled += records.count
            report.cursor = next
            if !response.hasMore || next == cursor { break }
        }
        try await downloadAwaitedAssets(into: &report)
        return report
    }

    /// Pushes the records of other replicas that came from an import (see
    /// ``ReplicaState/imported``), one replica id's range at a time; a range is forgotten
    /// once the server answered all of its records.
    private func pushImported(into report: inout SyncReport) async throws {
        for range in importedRanges {
            let records = importedRecords(in: range)
            var rejections: [OutboxException] = []
            for start in stride(from: 0, to: records.count, by: batchSize) {
                let batch = records[start ..< min(records.count, start + batchSize)]
                var outgoing: [SyncRecord] = []
                for record in batch {
                    do {
                        outgoing.append(try SyncRecord(record))
                    } catch {
                        rejections.append(OutboxException(key: SyncRecord.Key(path: record.path, timestamp: record.timestamp), rejection: "The value cannot be sent: \(error)"))
                    }
                }
                guard !outgoing.isEmpty else { continue }
                try await uploadAssets(referencedBy: Array(batch), into: &report)
                let response = try await transport.push(PushRequest(replica: id, records: outgoing))
                let sent = Set(outgoing.map(\.key))
                let acknowledged = Set(response.acknowledged.filter { sent.contains($0) })
                var answered = acknowledged
                for rejection in response.rejected where sent.contains(rejection.key) && !answered.contains(rejection.key) {
                    answered.insert(rejection.key)
                    rejections.append(OutboxException(key: rejection.key, rejection: rejection.reason))
                }
                report.pushed += outgoing.count
                report.acknowledged += acknowledged.count
                report.rejected += answered.count - acknowledged.count
                if answered.count < sent.count { throw ReplicaError.pushUnanswered(records: sent.count - answered.count) }
            }
            let remaining = importedRanges.filter { $0 != range }
            let updated = exceptions + rejections
            try Replica.store(in: history) {
                history.set(remaining, for: ReplicaState.imported)
                if !rejections.isEmpty { history.set(updated, for: ReplicaState.exceptions) }
            }
        }
    }

    /// The records of an imported range, oldest first.
    private func importedRecords(in range: ImportedRange) -> [Record] {
        outbox.importedRecords(in: range)
    }

    /// The outbox as stored now: read afresh, as pushes and pulls change it.
    private var outbox: OutboxReader {
        OutboxReader(history: history, writers: writers)
    }

    private var importedRanges: [ImportedRange] {
        history.get(ReplicaState.imported) ?? []
    }

    // MARK: State

    /// The server sequence number of the last pulled record; 0 before the first pull.
    public var pullCursor: Int64 {
        history.get(ReplicaState.pullCursor) ?? 0
    }

    private var acknowledgedThrough: Timestamp? {
        history.get(ReplicaState.acknowledgedThrough)
    }

    private var exceptions: [OutboxException] {
        history.get(ReplicaState.exceptions) ?? []
    }

    private func isOwn(_ key: SyncRecord.Key) -> Bool {
        OutboxReader.isOwn(key, writers: writers) // without reading the outbox's state
    }

    private func record(at key: SyncRecord.Key) -> Record? {
        history.records(at: key.path).first { $0.timestamp == key.timestamp }
    }

    private func changeRejected(_ key: SyncRecord.Key, _ change: (inout OutboxException) -> Void) throws(ReplicaError) {
        var all = exceptions
        guard let index = all.firstIndex(where: { $0.key == key && $0.rejection != nil }) else {
            throw .notRejected(key)
        }
        change(&all[index])
        try Replica.store(in: history) { history.set(all, for: ReplicaState.exceptions) }
    }

    /// Own records after the watermark that are not rejected, oldest first: at least
    /// `limit` (whole groups of one timestamp) or all; the timestamp the scan covered; and
    /// whether it passed records of data (not only the replica's own state).
    private func scanPending(limit: Int) -> (records: [Record], scannedThrough: Timestamp?, sawData: Bool) {
        outbox.scanPending(limit: limit)
    }

    static func store(in history: any HistoryDatabase, _ body: () throws -> Void) throws(ReplicaError) {
        do {
            try history.inBatchIfSupported(body)
        } catch {
            throw .storageFailed(String(describing: error))
        }
    }
}
