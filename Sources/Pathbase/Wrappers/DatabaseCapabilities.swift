/// A wrapper whose base is known only at run time: ``ObservableDatabase``, which SwiftUI
/// needs as one non-generic type. It has no capability of its own by type; code that needs
/// one finds it through ``erasedBase``.
package protocol ErasedDatabaseWrapper: Database {
    var erasedBase: any Database { get }
}

/// The one place that finds what a database can do beyond ``Database``: history, batches,
/// pruning, queries in SQL, model id checks. Wrappers have the capabilities of their base by
/// type (see ``DatabaseWrapper``), so a cast answers; only a wrapper erased to a
/// non-generic type (``ErasedDatabaseWrapper``) is looked through.
extension Database {

    /// This database as a history database, or `nil` if it keeps no history.
    ///
    /// Synchronization, conflict detection, instance history and import use records and
    /// timestamps only when this is not `nil`.
    var historyDatabase: (any HistoryDatabase)? { capability((any HistoryDatabase).self) }

    /// This database as a batch database, or `nil` if a failing batch could not take back
    /// its writes.
    var batchDatabase: (any BatchDatabase)? { capability((any BatchDatabase).self) }

    /// This database as one that can withdraw records, or `nil` if it can't, with every
    /// wrapper on the way able to pass the withdrawal on.
    var recordWithdrawingDatabase: (any RecordWithdrawingDatabase)? { capability((any RecordWithdrawingDatabase).self) }

    /// This database as a prunable database, or `nil` if it cannot prune.
    var prunableDatabase: (any PrunableHistoryDatabase)? { capability((any PrunableHistoryDatabase).self) }

    /// This database as `Capability` (a protocol it conforms to by type), looking through
    /// erased wrappers only.
    private func capability<Capability>(_ type: Capability.Type) -> Capability? {
        if let capable = self as? Capability { return capable }
        return (self as? any ErasedDatabaseWrapper)?.erasedBase.capability(type)
    }

    /// The database that runs queries for this one (in SQL), looking through wrappers that
    /// show their base's current state; `nil` if queries are evaluated on models.
    var queryPushdown: (any QueryPushdownDatabase)? {
        if let pushdown = self as? any QueryPushdownDatabase { return pushdown }
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.queryPushdown }
        if let wrapper = self as? any DatabaseWrapper, wrapper.showsBaseCurrentState {
            return wrapper.base.queryPushdown
        }
        return nil
    }

    /// The database that runs read transactions for this one, looking through wrappers that
    /// show their base's current state; `nil` if reads are not grouped.
    var readTransactionDatabase: (any ReadTransactionDatabase)? {
        if let reading = self as? any ReadTransactionDatabase { return reading }
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.readTransactionDatabase }
        if let wrapper = self as? any DatabaseWrapper, wrapper.showsBaseCurrentState {
            return wrapper.base.readTransactionDatabase
        }
        return nil
    }

    /// The rollback mark of this database or of the first database under its wrappers that
    /// tracks rollbacks; `nil` when none does (a database without batches takes nothing
    /// back).
    package var currentRollbackMark: RollbackMark? {
        if let tracking = self as? any RollbackTrackingDatabase { return tracking.rollbackMark }
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.currentRollbackMark }
        if let wrapper = self as? any DatabaseWrapper { return wrapper.base.currentRollbackMark }
        return nil
    }

    /// The database that holds this one's data, looking through every wrapper: two handles
    /// that reach the same storage by different wrappers share it.
    var storage: any Database {
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.storage }
        if let wrapper = self as? any DatabaseWrapper { return wrapper.base.storage }
        return self
    }

    /// The registry of the model types used with this database's data, looking through
    /// every wrapper, editing context and history view, so that two types with one model id are caught
    /// whichever way they reach the data; `nil` for a database that keeps none (your own).
    var modelTypeRegistry: ModelRegistry? {
        modelTypeOwner?.modelTypes
    }

    /// The concrete database under every wrapper, editing context and history view that
    /// keeps the registry of model types (and records their descriptions); `nil` for a
    /// database that keeps none (your own).
    var modelTypeOwner: (any ChecksModelTypes)? {
        if let checking = self as? any ChecksModelTypes { return checking }
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.modelTypeOwner }
        if let wrapper = self as? any DatabaseWrapper { return wrapper.base.modelTypeOwner }
        if let context = self as? EditingContext { return context.database.modelTypeOwner }
        if let view = self as? HistoryView { return view.base.modelTypeOwner }
        return nil
    }

    /// The clock that stamps this database's writes, looking through wrappers and editing
    /// contexts (whose commits the database stamps); `nil` for a database without history.
    var writeClock: HybridLogicalClock? {
        if let context = self as? EditingContext { return context.database.writeClock }
        if let history = self as? any HistoryDatabase { return history.clock }
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.writeClock }
        if let wrapper = self as? any DatabaseWrapper { return wrapper.base.writeClock }
        return nil
    }

    /// The database that keeps this one's assets, looking through wrappers, editing
    /// contexts and history views; `nil` for a database of your own without a folder.
    var assetStoringDatabase: (any AssetStoringDatabase)? {
        if let storing = self as? any AssetStoringDatabase { return storing }
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.assetStoringDatabase }
        if let wrapper = self as? any DatabaseWrapper { return wrapper.base.assetStoringDatabase }
        if let context = self as? EditingContext { return context.database.assetStoringDatabase }
        if let view = self as? HistoryView { return view.base.assetStoringDatabase }
        return nil
    }

    /// Every current value of a database that keeps no history (`InMemoryDatabase`), for
    /// asset garbage collection; `nil` for other databases.
    var currentValuesWithoutHistory: [(path: Path, value: any DatabaseValue)]? {
        (self as? InMemoryDatabase)?.currentValues()
    }

    /// Runs `body` in one batch where the database has batches, else directly. The one
    /// place that decides how grouped writes (commits, imports, undo, sync) run.
    func inBatchIfSupported<Result>(_ body: () throws -> Result) throws -> Result {
        if let batches = batchDatabase {
            return try batches.batch(body)
        }
        return try body()
    }
}
