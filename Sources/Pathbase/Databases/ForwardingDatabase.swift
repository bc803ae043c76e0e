/// A wrapper that is a ``HistoryDatabase`` by type whatever it wraps, and tells whether it
/// really keeps history.
///
/// ``ObservableDatabase`` is one: it is a history database over a plain database too, with
/// an empty history. Code that needs records and timestamps asks
/// `historyDatabase` instead of casting to `any HistoryDatabase`.
protocol HistoryForwardingDatabase: HistoryDatabase {

    /// Whether the database keeps records and timestamps, seeing through wrappers.
    var keepsHistory: Bool { get }
}

/// A wrapper that is a ``BatchDatabase`` by type whatever it wraps, and tells whether its
/// batches are really all or nothing.
protocol BatchForwardingDatabase: BatchDatabase {

    /// Whether a batch that throws takes back its writes, seeing through wrappers.
    var runsBatches: Bool { get }
}

extension Database {

    /// This database as a history database when it really keeps history: `nil` for a plain
    /// database, and for a wrapper over one (an ``ObservableDatabase`` over an
    /// ``InMemoryDatabase``, a ``CachedDatabase`` over that, …).
    ///
    /// The one place that decides whether synchronization, conflict detection, instance
    /// history and import can use records and timestamps.
    var historyDatabase: (any HistoryDatabase)? {
        if let forwarding = self as? any HistoryForwardingDatabase {
            return forwarding.keepsHistory ? forwarding : nil
        }
        return self as? any HistoryDatabase
    }

    /// This database as a batch database when a batch that throws takes back its writes:
    /// `nil` for a database without batches, and for a wrapper over one.
    var batchDatabase: (any BatchDatabase)? {
        if let forwarding = self as? any BatchForwardingDatabase {
            return forwarding.runsBatches ? forwarding : nil
        }
        return self as? any BatchDatabase
    }
}
