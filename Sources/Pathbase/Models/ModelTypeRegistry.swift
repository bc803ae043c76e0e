/// Remembers which model type uses which model id in one database, so that two types
/// sharing an id are caught at their first use instead of silently mixing their data.
package final class ModelTypeRegistry: Sendable {

    /// Each model id's type, and its name for the message.
    private let types = Locked<[ModelKey: (type: ObjectIdentifier, name: String)]>([:])

    package init() {}

    /// Registers `type` for its model id; stops the program with a message naming both
    /// types if another type already uses the id in this database.
    package func check<Model: ModelProtocol>(_ type: Model.Type) {
        let conflict: String? = types.withLock { types in
            let identifier = ObjectIdentifier(type)
            guard let existing = types[Model.modelId] else {
                types[Model.modelId] = (identifier, String(reflecting: type))
                ModelRegistry.shared.noteUse(type)
                return nil
            }
            return existing.type == identifier ? nil : existing.name
        }
        if let conflict {
            // A programming error, like a duplicate dictionary key literal: the two types
            // would read and overwrite each other's data if this went on.
            fatalError("Pathbase: model types \(conflict) and \(String(reflecting: type)) both use model id \(Model.modelId) in one database. Give each @Model a unique id.")
        }
    }
}

/// Databases that keep a registry of model types: the concrete databases. Wrappers and
/// editing contexts use their database's (see `modelTypeRegistry`).
package protocol ChecksModelTypes {
    var modelTypes: ModelTypeRegistry { get }
}

extension Database {
    @inline(__always)
    func checkModelType<Model: ModelProtocol>(_ type: Model.Type) {
        if let registry = modelTypeRegistry {
            // Notes first uses in `ModelRegistry.shared` itself.
            registry.check(type)
        } else {
            ModelRegistry.shared.noteUse(type)
        }
    }
}
