/// The model types known by model id: one registry for the whole process (``shared``) and
/// one inside each concrete database, both of this one type.
///
/// The process's registry is how a ``StateClient`` created without a model map finds the
/// type of a received command's model, and how StateModel's encoded history finds the type
/// of a stored value. A model type is known once it was used with a database — `create`,
/// `get`, `active`, `getOrCreate` or `all(of:)` — or registered:
///
/// ```swift
/// ModelRegistry.shared.register(SystemPackage.self, Item.self)
/// let client = StateClient(database: database, encoder: JSONEncoder(), decoder: JSONDecoder())
/// ```
///
/// Model ids are unique per database, not per process: if two types with the same id were
/// used, the process's registry answers `nil` for that id in ``type(for:)`` unless one of them
/// was registered; pass a model map to the client to decide yourself. A database's own
/// registry instead stops the program at the second type's first use, because the two types
/// would read and overwrite each other's data. Safe to use from any thread.
public final class ModelRegistry: Sendable {

    /// The registry of this process.
    public static let shared = ModelRegistry()

    /// What a registry does when a second type uses a model id it already knows.
    package enum ConflictRule: Sendable {
        /// The id becomes ambiguous (the process's registry: types of several databases).
        case ambiguous
        /// The program stops with a message naming both types (one database's registry).
        case stop
    }

    private enum Use {
        case one(any ModelProtocol.Type)
        case ambiguous
    }

    private struct State {
        var registered: [ModelKey: any ModelProtocol.Type] = [:]
        var used: [ModelKey: Use] = [:]
        /// The models whose description was recorded (or found recorded) in the database.
        var described: Set<ModelKey> = []
    }

    private let conflicts: ConflictRule
    private let state = Locked(State())

    /// Creates an empty registry in which a second type with a known id makes the id
    /// ambiguous, as in ``shared``.
    public convenience init() {
        self.init(conflicts: .ambiguous)
    }

    /// Creates an empty registry that answers a second type with a known id by `conflicts`.
    package init(conflicts: ConflictRule) {
        self.conflicts = conflicts
    }

    /// Registers model types; a registered type wins over other types with its id that
    /// were only used.
    public func register(_ types: any ModelProtocol.Type...) {
        state.withLock { state in
            for type in types {
                state.registered[type.modelId] = type
            }
        }
    }

    /// The type registered for a model id, or else the one type used with that id; `nil` if
    /// none or several were used.
    public func type(for model: ModelKey) -> (any ModelProtocol.Type)? {
        state.withLock { state in
            if let type = state.registered[model] { return type }
            if case .one(let type) = state.used[model] { return type }
            return nil
        }
    }

    /// Every type ``type(for:)`` answers for, in the order of their model ids.
    ///
    /// A type's name is `String(reflecting: type)`; the names of a `@Model`'s stored
    /// properties are the cases of its `PropertyId` (``ModelWithPropertyIds``).
    public var knownTypes: [any ModelProtocol.Type] {
        state.withLock { state in
            var types = state.registered
            for case (let model, .one(let type)) in state.used where types[model] == nil {
                types[model] = type
            }
            return types.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    /// Notes that a model type was used with a database. The first use of a type in a
    /// database's registry is also noted in the process's.
    ///
    /// With `describing` (a use that writes: a create), answers whether it is the first such
    /// use of the model id in this registry: the one time its database records the type's
    /// description (``ModelDescription``).
    @discardableResult
    package func noteUse<Model: ModelProtocol>(_ type: Model.Type, describing: Bool = false) -> Bool {
        let (conflict, firstDescribed): (String?, Bool) = state.withLock { state in
            switch state.used[Model.modelId] {
            case .none:
                state.used[Model.modelId] = .one(type)
                if conflicts == .stop { ModelRegistry.shared.noteUse(type) }
            case .one(let known) where known != type:
                guard conflicts == .stop else {
                    state.used[Model.modelId] = .ambiguous
                    return (nil, false)
                }
                return (String(reflecting: known), false)
            case .one, .ambiguous:
                break
            }
            return (nil, describing && state.described.insert(Model.modelId).inserted)
        }
        if let conflict {
            // A programming error, like a duplicate dictionary key literal: the two types
            // would read and overwrite each other's data if this went on.
            fatalError("Pathbase: model types \(conflict) and \(String(reflecting: type)) both use model id \(Model.modelId) in one database. Give each @Model a unique id.")
        }
        return firstDescribed
    }
}

/// Databases that keep a registry of model types: the concrete databases. Wrappers and
/// editing contexts use their database's (see `modelTypeOwner`).
package protocol ChecksModelTypes: Database {
    /// The model types used with this database; its conflict rule is `.stop`.
    var modelTypes: ModelRegistry { get }

    /// Whether the database records the description of every model type created in it in
    /// its catalog (`ModelCatalog`): files, which tools read. `false` by default.
    var recordsModelDescriptions: Bool { get }
}

extension ChecksModelTypes {
    package var recordsModelDescriptions: Bool { false }
}

extension Database {
    @inline(__always)
    func checkModelType<Model: ModelProtocol>(_ type: Model.Type) {
        // A database's registry notes first uses in the process's itself.
        (modelTypeRegistry ?? ModelRegistry.shared).noteUse(type)
    }

    /// ``checkModelType(_:)`` for a create: the first create of a type in a database that
    /// records descriptions also records the type's in the database's catalog.
    @inline(__always)
    func checkCreatedModelType<Model: ModelProtocol>(_ type: Model.Type) {
        guard let owner = modelTypeOwner else {
            ModelRegistry.shared.noteUse(type)
            return
        }
        if owner.modelTypes.noteUse(type, describing: owner.recordsModelDescriptions) {
            ModelCatalog.record(Model._$description, of: Model.modelId, in: owner)
        }
    }
}
