import Foundation

/// How much superseded history a database keeps by itself (`SQLiteDatabase.Options.retention`,
/// ``InMemoryHistoryDatabase/init(clock:retention:)``).
///
/// ```swift
/// let options = SQLiteDatabase.Options(retention: HistoryRetention(versions: 10, age: 30 * 86400))
/// ```
///
/// A path's current value always stays. With ``versions``, its newest `versions` records
/// stay (the current one counts); with ``age``, every record newer than `age` seconds ago
/// stays, and the newest one at or before that moment (the state then). With both, a record
/// goes only when neither keeps it. On a database that a ``Replica`` syncs, no record the
/// server has not answered goes (``Replica/pruningLimit``, read from the replica's state in
/// the database): writes made offline all reach the server; nothing goes before the first
/// push found records.
///
/// What was removed reads as absent: a view of a moment whose record was removed shows the
/// path without a value (never an older, wrong one); ``HistoryDatabase/historyStart``
/// does not move, as paths written less often keep more of their past.
public struct HistoryRetention: Sendable, Hashable {

    /// How many of each path's newest records stay, the current one included (at least 1);
    /// `nil` for no limit by count.
    public var versions: Int?

    /// Records newer than this many seconds ago stay; `nil` for no limit by age.
    public var age: TimeInterval?

    /// A policy; without arguments, every record stays.
    public init(versions: Int? = nil, age: TimeInterval? = nil) {
        self.versions = versions.map { max(1, $0) }
        self.age = age.map { max(0, $0) }
    }

    /// Every record stays: the default.
    public static let everything = HistoryRetention()

    /// Whether the policy keeps every record.
    public var keepsEverything: Bool { versions == nil && age == nil }
}
