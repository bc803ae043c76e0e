/// The model types this process knows by model id: how a ``StateClient`` created without
/// a model map finds the type of a received command's model.
///
/// A model type is known once it was used with a database — `create`, `get`, `active`,
/// `getOrCreate` or `all(of:)` — or registered:
///
/// ```swift
/// ModelRegistry.shared.register(SystemPackage.self, Item.self)
/// let client = StateClient(database: database, encoder: JSONEncoder(), decoder: JSONDecoder())
/// ```
///
/// Model ids are unique per database, not per process: if two types with the same id were
/// used, ``type(for:)`` answers `nil` for that id unless one of them was registered. Pass a
/// model map to the client to decide yourself. Safe to use from any thread.
public final class ModelRegistry: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.

    /// The registry of this process.
    public static let shared = ModelRegistry()

    private enum Use {
        case one(any ModelProtocol.Type)
        case ambiguous
    }

    private let lock = Lock()
    private var registered: [ModelKey: any ModelProtocol.Type] = [:]
    private var used: [ModelKey: Use] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Registers model types; a registered type wins over other types with its id that
    /// were only used.
    public func register(_ types: any ModelProtocol.Type...) {
        lock.withLock {
            for type in types {
                registered[type.modelId] = type
            }
        }
    }

    /// The type registered for a model id, or else the one type used with that id; `nil` if
    /// none or several were used.
    public func type(for model: ModelKey) -> (any ModelProtocol.Type)? {
        lock.withLock {
            if let type = registered[model] { return type }
            if case .one(let type) = used[model] { return type }
            return nil
        }
    }

    /// Every type ``type(for:)`` answers for, by model id.
    var knownTypes: [any ModelProtocol.Type] {
        lock.withLock {
            var types = registered
            for case (let model, .one(let type)) in used where types[model] == nil {
                types[model] = type
            }
            return types.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    /// Notes that a model type was used with a database.
    func noteUse<Model: ModelProtocol>(_ type: Model.Type) {
        lock.withLock {
            switch used[Model.modelId] {
            case .none:
                used[Model.modelId] = .one(type)
            case .one(let known) where known != type:
                used[Model.modelId] = .ambiguous
            case .one, .ambiguous:
                break
            }
        }
    }
}
