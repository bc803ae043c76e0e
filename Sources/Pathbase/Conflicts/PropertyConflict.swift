/// The concurrent writes of one property: values written by replicas that had not seen
/// each other's, and the value the property's policy kept.
///
/// ```swift
/// for conflict in database.conflicts(of: note) {
///     for write in conflict.writes {
///         print(write.replica, write.timestamp, write.value, write.isKept ? "kept" : "lost")
///     }
/// }
/// ```
///
/// Newest-wins keeps the newest write; the others are ``losingWrites``, still in the
/// history, and ``Database/restore(_:)`` writes one back. With a ``MergePolicy`` other than
/// newest-wins, ``kept`` is the merged state (see ``MergeableValue``), and no write is kept
/// as it was.
public struct PropertyConflict: CustomStringConvertible {

    /// The property's path.
    public var path: Path

    /// The field's coding key for a struct of a ``CodableCollection``; `nil` for a model's
    /// property (its id is `path.property`).
    public var field: String?

    /// The concurrent writes, oldest first: the newest write of each replica that took part.
    public var writes: [ConcurrentWrite]

    /// The record the property reads now: the newest write, or the merge policy's result.
    public var kept: Record

    /// The writes whose value the property no longer reads.
    public var losingWrites: [ConcurrentWrite] { writes.filter { !$0.isKept } }

    /// Creates a conflict.
    public init(path: Path, field: String? = nil, writes: [ConcurrentWrite], kept: Record) {
        self.path = path
        self.field = field
        self.writes = writes
        self.kept = kept
    }

    public var description: String {
        let name = field.map { "\"\($0)\"" } ?? "\(path)"
        return "\(name): \(writes.map(\.description).joined(separator: ", ")); kept \(kept.value)"
    }
}

/// One of the writes of a ``PropertyConflict``: its value, its writer and when.
///
/// ```swift
/// if let lost = conflict.losingWrites.first {
///     print("replica \(lost.replica) wrote \(lost.value) at \(lost.timestamp.date)")
///     database.restore(lost)
/// }
/// ```
public struct ConcurrentWrite: CustomStringConvertible {

    /// The record as stored.
    public var record: Record

    /// Whether the property reads this write's value now.
    public var isKept: Bool

    /// The value written.
    public var value: any DatabaseValue { record.value }

    /// When it was written: the writer's clock reading.
    public var timestamp: Timestamp { record.timestamp }

    /// The id of the replica that wrote it (see ``Replica/id``).
    public var replica: UInt32 { record.timestamp.replica }

    /// Creates a write of a conflict.
    public init(record: Record, isKept: Bool) {
        self.record = record
        self.isKept = isKept
    }

    public var description: String {
        "\(value) by replica \(replica) at \(timestamp)\(isKept ? " (kept)" : "")"
    }
}
