/// What each replica had seen of the others' records when it wrote: the records that let
/// ``Database/conflicts(of:)`` tell *concurrent* writes from later ones.
///
/// A ``Replica`` records, in the batch that stores a pulled page bringing other replicas'
/// data, its **seen frontier** (``SeenFrontier``): for every other replica id, the newest
/// timestamp it has pulled from it. The record is at (model ``model``, instance: the writing
/// clock's replica id, property 1), stamped by the database's clock before the page is
/// applied, so every later write of the same clock was made having seen at least that
/// frontier, and every earlier one at most the previous. A server hands out each replica's
/// records in the order they reached it (oldest first), so "had pulled a timestamp of
/// replica R at or after A's" means "had A".
///
/// The frontiers are ordinary records: pushed and pulled like data, opaque to the server,
/// exported and imported. They cost nothing on the write path; a pull stores one record
/// per page that brings another replica's data, after one read of the previous frontier.
/// Records of Pathbase's own bookkeeping (models from ``bookkeepingModels``, and the
/// replica state) do not move it, so two replicas never answer each other's frontiers.
///
/// Each frontier also says since when its replica records them (``SeenFrontier/since``, its
/// first pull with this version, kept in its replica state): a write after that and before
/// its first frontier had seen nothing of the others'. A write before it (an older version
/// of Pathbase, a database that was never a replica) or of a writer that recorded no
/// frontier at all (an import, an older client) has **unknown** provenance and is never
/// reported as concurrent.
enum WriterProvenance {

    /// What a replica had pulled of the others' records, from a moment on.
    struct SeenFrontier: Codable, Hashable {

        /// The replica's first pull that recorded frontiers.
        var since: Timestamp

        /// The newest timestamp pulled of each other replica, one per replica id.
        var newest: [Timestamp]
    }

    /// The model holding one frontier per writing replica id.
    static let model: ModelKey = 0x3FFF_FF03

    /// Models Pathbase writes for itself (collection and model catalogs, counters, these
    /// frontiers): their records tell nothing about what a user's write had seen.
    static let bookkeepingModels: ClosedRange<ModelKey> = 0x3FFF_FF00 ... 0x3FFF_FFFF

    /// Where the frontiers of the clock `replica` are recorded.
    static func path(of replica: UInt32) -> Path {
        Path(model: model, instance: InstanceKey(replica), property: 1)
    }

    /// `stored` once `records` are seen too, or `nil` when they add nothing (records of
    /// Pathbase's bookkeeping, or timestamps already seen).
    static func newest(_ stored: [Timestamp], adding records: [Record]) -> [Timestamp]? {
        var newest: [UInt32: Timestamp] = [:]
        for timestamp in stored { newest[timestamp.replica] = max(timestamp, newest[timestamp.replica] ?? .zero) }
        var moved = false
        for record in records where !bookkeepingModels.contains(record.path.model) && record.path.model != ReplicaState.model {
            let replica = record.timestamp.replica
            if let seen = newest[replica], seen >= record.timestamp { continue }
            newest[replica] = record.timestamp
            moved = true
        }
        return moved ? newest.values.sorted { $0.replica < $1.replica } : nil
    }

    /// Records, before `records` are applied, the frontier the database's clock has seen once
    /// they are: call it inside the batch that applies them (a ``Replica``'s pulled page).
    static func recordSeeing(_ records: [Record], in history: any HistoryDatabase) {
        var since: Timestamp? = history.get(ReplicaState.provenanceSince)
        if since == nil {
            let now = history.clock.now()
            history.set(now, for: ReplicaState.provenanceSince)
            since = now
        }
        guard let since else { return }
        let path = path(of: history.clock.replica)
        let stored: SeenFrontier? = history.get(path)
        if let moved = newest(stored?.newest ?? [], adding: records) {
            history.set(SeenFrontier(since: stored?.since ?? since, newest: moved), for: path)
        }
    }

    /// The frontiers of the writers of `records`, by replica id, oldest first: read once per
    /// writer for a whole list of records.
    static func frontiers(ofWritersOf records: [Record], in history: any HistoryDatabase) -> [UInt32: [Timestamped<SeenFrontier>]] {
        var frontiers: [UInt32: [Timestamped<SeenFrontier>]] = [:]
        for replica in Set(records.map(\.timestamp.replica)) {
            // Pulled frontiers may read as `EncodedValue`s (a process that has not stored one).
            frontiers[replica] = history.records(at: path(of: replica)).compactMap { record in
                guard record.timestamp.replica == replica, let frontier = castStoredValue(record.value, as: SeenFrontier.self) else { return nil }
                return Timestamped(value: frontier, timestamp: record.timestamp)
            }.sorted { $0.timestamp < $1.timestamp }
        }
        return frontiers
    }

    /// Whether the write `later` was made without having seen `earlier` (an older record of
    /// the same path), by the writers' frontiers: `false` for writes of one replica and for a
    /// write of unknown provenance.
    static func isConcurrent(_ earlier: Record, _ later: Record, frontiers: [UInt32: [Timestamped<SeenFrontier>]]) -> Bool {
        let writer = later.timestamp.replica
        guard writer != earlier.timestamp.replica, earlier.timestamp < later.timestamp, let recorded = frontiers[writer] else { return false }
        let newestSeen: [Timestamp]
        if let seen = recorded.last(where: { $0.timestamp < later.timestamp }) {
            newestSeen = seen.value.newest
        } else if let first = recorded.first, first.value.since < later.timestamp {
            newestSeen = [] // written after the writer recorded frontiers, before it saw anything
        } else {
            return false
        }
        return newestSeen.first { $0.replica == earlier.timestamp.replica }.map { $0 < earlier.timestamp } ?? true
    }
}
