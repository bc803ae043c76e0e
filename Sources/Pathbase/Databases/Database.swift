/// A store of values by ``Path``: the whole contract a backend has to fulfil.
///
/// A database gets and sets single values by path and lists the instances of a model by
/// their status. Everything else — creating, fetching, deleting and filtering models — is
/// built on these three requirements in protocol extensions, so any conforming type can hold
/// any model:
///
/// ```swift
/// final class MinimalDatabase: Database {
///     private var values: [Path: Any] = [:]
///
///     func get<Value: DatabaseValue>(_ path: Path) -> Value? {
///         values[path].flatMap { $0 as? Value }
///     }
///
///     func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
///         values[path] = value
///     }
///
///     func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
///         values.compactMap { path, value in
///             guard path.model == model, path.property == PropertyKey.instanceId,
///                   let status = value as? InstanceStatus else { return nil }
///             return predicate(path.instance, status)
///         }
///     }
/// }
/// ```
///
/// A database is a class: models keep a reference to the database they live in. The
/// protocol does not require `Sendable`; the databases Pathbase provides are safe to use
/// from any thread.
public protocol Database: AnyObject {

    /// Returns the current value at a path, or `nil` if none is stored or the stored value
    /// is not a `Value`.
    ///
    /// When nothing is stored, return `nil` even if `Value` is itself an `Optional`, as
    /// `dictionary[path].flatMap { $0 as? Value }` does. The shorter
    /// `dictionary[path] as? Value` turns a missing entry into `.some(nil)` for optional
    /// value types; models still read their declared defaults on such a database (they
    /// notice it and store a written `nil` as a marker), but your own direct reads of an
    /// `Optional` type can't tell a stored `nil` from nothing stored.
    func get<Value: DatabaseValue>(_ path: Path) -> Value?

    /// Stores a value at a path, replacing the current one.
    func set<Value: DatabaseValue>(_ value: Value, for path: Path)

    /// Calls `predicate` with every instance of a model that has a stored status, and
    /// returns the non-`nil` results.
    func all<T>(model: ModelKey, where predicate: (_ instance: InstanceKey, _ status: InstanceStatus) -> T?) -> [T]

    /// The observers of this database's instances, when it is observed.
    ///
    /// Not part of a backend's work: the default is `nil`. ``ObservableDatabase`` returns
    /// its observers, and wrappers over an observed database forward them, so that models
    /// used through the wrapper are observed too.
    var instanceObservers: InstanceObservers? { get }

    /// Whether this database answers `.some(nil)` for an `Optional` read of a path that
    /// holds nothing (see ``get(_:)``), which models then work around.
    ///
    /// Not part of a backend's work: the default asks the database (one read of a path no
    /// model uses, see ``_$conflatesNil(_:)``). Pathbase's databases declare `false`, and
    /// wrappers answer for their base, so model reads of unset `Optional` properties cost
    /// one lookup there.
    var _$conflatesStoredNil: Bool { get }
}
