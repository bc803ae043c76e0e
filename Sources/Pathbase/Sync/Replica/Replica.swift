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
/// clock ids (an explicit clock, the ids an older file was written with, the ids it retired)
/// are remembered too, so their writes stay its own; the list grows only when such a clock
/// appears.
///
/// Two files must never write under one id: counter contributions and set additions are
/// kept per id, so two files issuing them under the same one would be taken for one writer's
/// and lose each other's. A copied, moved or restored SQLite file takes a new id when it is
/// opened (see `SQLiteDatabase`'s identity). What the file cannot tell — a backup written over
/// the live file in place — the server does: each push claims the watermark through which the
/// replica's records were answered (``PushRequest/continuity``), and a server that holds
/// records under the id after it that the push does not carry refuses it whole
/// (``PushResponse/forked``). The replica then takes a new id (stored in the file for every
/// process, adopted by the clock), moves the merge states it changed under the old id since
/// the watermark to the new one (``MergeableValue/rehomed(from:to:since:)``), and pushes
/// again. A pulled record stamped with one of the replica's ids is skipped only when the
/// database holds it; otherwise (the other copy's, or the file's own later self's before a
/// restore) it is applied, and never pushed back.
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

    /// The replica's id, stored in its database: the id its database's clock stamps new
    /// writes with. It changes when the database learns that another file writes under it
    /// (see **Identity** above).
    public private(set) var id: UInt32

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

    /// Every id the database wrote its own records with: the current one, the ones it
    /// retired, those of an older file's opens.
    private(set) var writers: Set<UInt32>

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
        // A database that retired the stored id (a copied or restored file took a new one
        // when it opened) is a replica under its clock's new id.
        let retired = storedId.map { $0 != clockId && clock.earlierReplicas.contains($0) } ?? false
        self.id = retired ? clockId : storedId ?? clockId
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
        if storedId == nil || retired || !newWriters.isEmpty {
            let id = self.id
            try Replica.store(in: history) {
                if storedId == nil || retired { history.set(id, for: ReplicaState.id) }
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
        try Replica.store(in: history) {
            let stored: [OutboxException] = history.get(ReplicaState.exceptions) ?? []
            history.set(stored.filter { $0.key != key }, for: ReplicaState.exceptions)
        }
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
        var tookNewIdentity = false
        while true {
            let watermark = acknowledgedThrough
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
                // Records pruned before the history's start cannot be sent again: claimed as answered.
                let claimed = [watermark, history.historyStart].compactMap { $0 }.max()
                let response = try await transport.push(PushRequest(replica: id, records: outgoing, continuity: .init(acknowledgedThrough: claimed)))
                if let forked = response.forked {
                    // Another file writes under this id: nothing was stored; a new id, then again.
                    guard !tookNewIdentity else { throw ReplicaError.replicaIdInUse(id: id, reason: forked) }
                    try takeNewIdentity(because: forked)
                    tookNewIdentity = true
                    continue
                }
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
                    // Read again inside the batch: another process syncing the same file may
                    // have changed the exceptions since they were read above.
                    let stored: [OutboxException] = history.get(ReplicaState.exceptions) ?? []
                    var changed = stored.filter { answered[$0.key] == nil }
                    for (key, answer) in answered {
                        if let reason = answer { changed.append(OutboxException(key: key, rejection: reason)) }
                    }
                    if changed != stored { history.set(changed, for: ReplicaState.exceptions) }
                    if movesWatermark, let through {
                        history.set(through, for: ReplicaState.acknowledgedThrough)
                        forgetSettled(through: through)
                    }
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
            var settled: [SyncRecord.Key] = []
            let watermark = acknowledgedThrough
            for incoming in response.records {
                if incoming.path.model == ReplicaState.model {
                    throw ReplicaError.undecodableRecord(key: incoming.key, reason: "the path is reserved for the replica's own state")
                }
                if writers.contains(incoming.timestamp.replica) {
                    // Stamped with one of our ids: skipped only when the file holds it. A copy
                    // or a restored backup gets what the other file wrote under an id it
                    // retired, and never pushes it back as its own.
                    if holds(incoming.key) { continue }
                    if watermark.map({ incoming.timestamp > $0 }) ?? true { settled.append(incoming.key) }
                }
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
                if !settled.isEmpty { history.set((history.get(ReplicaState.settled) ?? []) + settled, for: ReplicaState.settled) }
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
                // Other replicas' records: no claim on this replica's own.
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
            try Replica.store(in: history) {
                // Read inside the batch, so that another process's changes are kept.
                history.set((history.get(ReplicaState.imported) as [ImportedRange]? ?? []).filter { $0 != range }, for: ReplicaState.imported)
                if !rejections.isEmpty { history.set((history.get(ReplicaState.exceptions) ?? []) + rejections, for: ReplicaState.exceptions) }
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

    /// Whether the database holds the record with this key: its path's newest record (one
    /// read: what a pull brings back of the replica's own pushes), or one of its history.
    private func holds(_ key: SyncRecord.Key) -> Bool {
        if let latest = history.latestRecord(at: key.path), latest.timestamp == key.timestamp { return true }
        return record(at: key) != nil
    }

    /// Forgets the settled records the watermark passed (in a batch of the caller's).
    private func forgetSettled(through: Timestamp) {
        guard let settled: [SyncRecord.Key] = history.get(ReplicaState.settled), !settled.isEmpty else { return }
        let remaining = settled.filter { $0.timestamp > through }
        if remaining.count != settled.count { history.set(remaining, for: ReplicaState.settled) }
    }

    /// Takes a new id after the server answered that another file pushes under this one (a
    /// backup written over the live file, or a copy the file could not tell): the database
    /// stores it (an SQLite file in its identity, for every process) and its clock stamps
    /// with it from now on. The merge states this replica changed under the old id since the
    /// server last answered it are moved to the new id (``MergeableValue/rehomed(from:to:since:)``)
    /// and written anew, and the records that held them are settled, never pushed: so the
    /// other file's counter contributions and set additions under the old id are not taken
    /// for ours. Other pending records (plain values, newest wins) are pushed as they are.
    private func takeNewIdentity(because reason: String) throws(ReplicaError) {
        let old = id
        let clock = history.clock
        // A clock made with an explicit id keeps it: the app chose the id.
        guard clock.followsDatabaseIdentity else { throw .replicaIdInUse(id: old, reason: reason) }
        let new: UInt32
        if let keeper = history.storage as? any ReplicaIdentityKeeping {
            do {
                new = try keeper.takeNewReplicaIdentity()
            } catch {
                throw .storageFailed("cannot store a new replica id: \(error)")
            }
        } else {
            var candidate = UInt32.random(in: 1 ... .max)
            while writers.contains(candidate) { candidate = UInt32.random(in: 1 ... .max) }
            new = candidate
            clock.takeNewIdentity(new)
        }
        let watermark = acknowledgedThrough
        let pending = outbox.scanPending(limit: .max).records.filter { $0.timestamp.replica == old }
        let merged = pending.filter { MergeableTypes.mergeable($0.value) != nil }
        let history = self.history
        let allWriters = (history.get(ReplicaState.writers) as [UInt32]? ?? writers.sorted()) + [new]
        try Replica.store(in: history) {
            for path in Set(merged.map(\.path)).sorted(by: { ($0.model, $0.instance, $0.property) < ($1.model, $1.instance, $1.property) }) {
                guard let latest = history.latestRecord(at: path), let state = MergeableTypes.mergeable(latest.value) else { continue }
                let base = watermark.flatMap { watermark in history.records(at: path).last { $0.timestamp <= watermark } }
                if let moved = state.rehomedChange(from: old, to: new, since: base.flatMap { MergeableTypes.mergeable($0.value) }) {
                    history.set(erased: moved, for: path, timestamp: clock.now())
                }
            }
            if !merged.isEmpty {
                let settled = (history.get(ReplicaState.settled) ?? []) + merged.map { SyncRecord.Key(path: $0.path, timestamp: $0.timestamp) }
                history.set(settled, for: ReplicaState.settled)
            }
            history.set(new, for: ReplicaState.id)
            history.set(allWriters, for: ReplicaState.writers)
        }
        id = new
        writers.insert(new)
    }

    private func changeRejected(_ key: SyncRecord.Key, _ change: (inout OutboxException) -> Void) throws(ReplicaError) {
        guard exceptions.contains(where: { $0.key == key && $0.rejection != nil }) else {
            throw .notRejected(key)
        }
        // Changed as read inside the batch, so that another process's changes are kept.
        try Replica.store(in: history) {
            var all: [OutboxException] = history.get(ReplicaState.exceptions) ?? []
            guard let index = all.firstIndex(where: { $0.key == key && $0.rejection != nil }) else { return }
            change(&all[index])
            history.set(all, for: ReplicaState.exceptions)
        }
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
