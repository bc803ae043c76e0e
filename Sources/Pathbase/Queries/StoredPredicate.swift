/// A filter in the form a database runs it on stored values: conditions on the current
/// values of a model's properties, by property id.
///
/// ``QueryFilter`` builds it from key paths; databases that can run it (`SQLiteDatabase`)
/// implement ``QueryPushdownDatabase``. Each condition carries what it evaluates to for an
/// instance without a value of the property's type — a missing value, a stored `nil`, a
/// value written as another type — because the model then reads its default, and a
/// database must return exactly what evaluating the filter on models would.
package indirect enum StoredPredicate {
    case condition(StoredCondition)
    case and([StoredPredicate])
    case or([StoredPredicate])
    case not(StoredPredicate)
}

/// One condition on a property's current value.
package struct StoredCondition {

    package enum Operator: Int {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
        /// The string contains the operand.
        case contains
        /// The string starts with the operand.
        case hasPrefix
        /// The value is one of the operands.
        case isIn
        /// The stored value is `nil` (no operand; only `matchesNil` can be true).
        case isNil
        /// The stored `[Int]` (a reference list) contains the operand.
        case listContains
    }

    /// The property whose value is compared.
    package let property: PropertyKey
    /// The type the property's values are stored as (without `Optional`); for
    /// ``Operator/listContains``, the element type `Int`.
    package let valueType: any QueryableValue.Type
    package let operation: Operator
    package let operands: [QueryOperand]
    /// What the condition evaluates to when the stored value is `nil`.
    package let matchesNil: Bool
    /// What it evaluates to when there is no value of `valueType` (the default is read).
    package let matchesDefault: Bool
}

/// A sort on a property's current value, then by ascending instance id.
package struct StoredSort {
    package let property: PropertyKey
    package let valueType: any QueryableValue.Type
    /// The value of instances without a value of `valueType`: the property's default.
    package let defaultValue: QueryOperand
    package let reverse: Bool
}

/// A database that finds the instances a query describes itself — in SQL, over an index —
/// instead of listing every instance and evaluating the filter on models.
package protocol QueryPushdownDatabase: Database {

    /// The ids of the active instances of `model` matching `predicate` (all when `nil`),
    /// ordered by `sort` then ascending id (by id when `nil`), paged; `nil` if the database
    /// cannot run this query, and the caller evaluates it on models instead.
    ///
    /// `readingValues`: every current value of every returned instance is read next, in
    /// the running read transaction (a collection decoding a query's matches). The database
    /// may then read them with the matches, so that ``willReadCurrentValues(of:instances:)``
    /// for these ids finds them read already.
    func instanceIds(of model: ModelKey, where predicate: StoredPredicate?, sortedBy sort: StoredSort?, offset: Int, limit: Int?, readingValues: Bool) -> [InstanceKey]?

    /// Every current value of these instances of `model` (of every instance when `nil`) is
    /// about to be read in the running transaction (a collection decoding a query's
    /// matches or all its structs, or checking what is stored of the structs it saves):
    /// read them in one pass instead of one lookup per value.
    /// Nothing outside a transaction.
    func willReadCurrentValues(of model: ModelKey, instances: [InstanceKey]?)

    /// The current values of an instance read together, when this database keeps them for
    /// the running transaction (after ``willReadCurrentValues(of:instances:)``); `nil` when
    /// it doesn't, and each value is read with `get`. A collection decodes a struct from
    /// them: one lookup of the instance instead of one per field. Valid until the running
    /// transaction ends or writes; only on the thread that runs it.
    func keptValues(of model: ModelKey, instance: InstanceKey) -> (any KeptInstanceValues)?

    /// The version of what the running transaction sees; `nil` outside a transaction. Two
    /// equal versions mean nothing was written in between — by this handle or another —
    /// and nothing was taken back, so what was read at the first still holds.
    var contentVersion: ContentVersion? { get }
}

/// What a ``QueryPushdownDatabase`` holds, as of one moment: equal versions, equal
/// contents. Opaque parts the database chooses (for SQLite: the file's data version, the
/// connection's changes and its rollbacks).
package struct ContentVersion: Equatable, Sendable {
    private let first: Int64
    private let second: Int64
    private let third: Int64

    package init(_ first: Int64, _ second: Int64, _ third: Int64) {
        self.first = first
        self.second = second
        self.third = third
    }
}

/// A database that answers inverse lookups with prepared statements: the commonest query,
/// made per call (a view listing an instance's children), where building a query's SQL
/// would cost more than running it.
package protocol InverseLookupDatabase: Database {

    /// The ids of the active instances of `model` whose current value of `property`
    /// references `target` — an `InstanceKey` (`inList == false`) or a list of them —
    /// in ascending order; `nil` if the database can't answer.
    func referrers(of target: InstanceKey, model: ModelKey, property: PropertyKey, inList: Bool) -> [InstanceKey]?
}
