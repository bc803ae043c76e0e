/// Where a ``Replica`` keeps its synchronization state: records under a reserved model id in
/// its own database.
///
/// Keeping the state as records (rather than beside the database) makes it as durable as
/// the data, on every kind of history database, and lets the state change in the same
/// batch as the data it describes: a pulled page and its cursor are one transaction on
/// SQLite. The outbox itself needs no entries: a replica's own records are those stamped
/// with one of its clock ids, and they are pending until their timestamp is after
/// the acknowledged watermark. So a write and its outbox entry are the same record and can
/// never be separated by a crash. Only exceptions (rejected or retried records) are listed.
///
/// These paths are never pushed, never applied from a pull, and refused by the server.
package enum ReplicaState {

    /// The reserved model id: the smallest `Int`, which no `@Model(id:)` uses in practice.
    package static let model: ModelKey = .min

    /// The replica's id (`UInt32`), written once.
    package static let id = Path(model: model, instance: 0, property: 1)

    /// Every clock replica id the database has written with (`[UInt32]`): a database
    /// reopened with another clock still knows its earlier records as its own.
    package static let writers = Path(model: model, instance: 0, property: 2)

    /// The newest timestamp up to which every own record is acknowledged or rejected
    /// (`Timestamp`).
    package static let acknowledgedThrough = Path(model: model, instance: 1, property: 1)

    /// Rejected and retried records (`[OutboxException]`).
    package static let exceptions = Path(model: model, instance: 1, property: 2)

    /// Own records after the watermark that need no push (`[SyncRecord.Key]`): pulled from
    /// the server (written under an id this file retired, by the copy or the earlier self
    /// that kept writing under it), or replaced under a new id when the server answered that
    /// another file writes under the old one. Forgotten once the watermark passes them.
    static let settled = Path(model: model, instance: 1, property: 3)

    /// The server sequence number of the last pulled record (`Int64`).
    package static let pullCursor = Path(model: model, instance: 2, property: 1)

    /// Assets that pulled records reference and whose content has not been downloaded yet
    /// (`[Asset]`), stored with the page that brought them.
    package static let awaitedAssets = Path(model: model, instance: 3, property: 1)

    /// When the last sync succeeded (`Date`), for ``ReplicaStatus/lastSuccessfulSync``.
    package static let lastSuccessfulSync = Path(model: model, instance: 5, property: 1)

    /// Why the last sync failed (`String`), removed (`nil`) by the next success.
    package static let lastError = Path(model: model, instance: 5, property: 2)

    /// How many records the server held at the last pull page (`Int64`).
    package static let serverTotal = Path(model: model, instance: 5, property: 3)

    /// Whether a pull reached the end of the server's records once (`Bool`).
    package static let initialSyncComplete = Path(model: model, instance: 5, property: 4)

    /// When the replica first pulled with a Pathbase that records what it had seen
    /// (`Timestamp`, see ``WriterProvenance``): its writes after it had seen nothing of the
    /// others' before its first frontier, its writes before it are of unknown provenance.
    package static let provenanceSince = Path(model: model, instance: 6, property: 1)

    /// Records of other replicas that came from an import, not from the server, still to
    /// push (`[ImportedRange]`).
    static let imported = Path(model: model, instance: 4, property: 1)

    /// Notes, in the same batch as an import into a database that is a replica, the
    /// imported records its own ids did not write: the next push sends them (the server
    /// keeps each path and timestamp once, so those it has are only acknowledged).
    static func noteImported(_ records: [Record], in history: any HistoryDatabase) {
        guard history.get(id) as UInt32? != nil else { return }
        let own = Set(history.get(writers) as [UInt32]? ?? [])
        let added = ImportedRange.ranges(of: records, excluding: own)
        guard !added.isEmpty else { return }
        history.set(ImportedRange.merged(history.get(imported) ?? [], added), for: imported)
    }
}

/// Records another replica wrote that this database got from elsewhere than the server (an
/// import of an export): those of one replica id between two timestamps, pushed once.
struct ImportedRange: Codable, Hashable {
    var replica: UInt32
    var from: Timestamp
    var through: Timestamp

    /// The ranges of `records` whose replica id is not one of `own`, per replica id; none
    /// for the replica's bookkeeping.
    static func ranges(of records: some Sequence<Record>, excluding own: Set<UInt32>) -> [ImportedRange] {
        var ranges: [UInt32: ImportedRange] = [:]
        for record in records where record.path.model != ReplicaState.model && !own.contains(record.timestamp.replica) {
            let replica = record.timestamp.replica
            if var range = ranges[replica] {
                range.from = min(range.from, record.timestamp)
                range.through = max(range.through, record.timestamp)
                ranges[replica] = range
            } else {
                ranges[replica] = ImportedRange(replica: replica, from: record.timestamp, through: record.timestamp)
            }
        }
        return ranges.values.sorted { $0.from < $1.from }
    }

    /// `ranges` and `added`, one range per replica id covering both.
    static func merged(_ ranges: [ImportedRange], _ added: [ImportedRange]) -> [ImportedRange] {
        var byReplica: [UInt32: ImportedRange] = [:]
        for range in ranges + added {
            if var known = byReplica[range.replica] {
                known.from = min(known.from, range.from)
                known.through = max(known.through, range.through)
                byReplica[range.replica] = known
            } else {
                byReplica[range.replica] = range
            }
        }
        return byReplica.values.sorted { $0.from < $1.from }
    }
}

/// An own record that is not simply pending or acknowledged: rejected by the server (with
/// its reason), or rejected and then retried by the user (no reason: pending again).
struct OutboxException: Codable, Hashable {
    var key: SyncRecord.Key
    var rejection: String?
}
