// Pieces of the expected `@Model` expansion that are the same in every test but for a name,
// a model id or an access level, so that each test spells out only what it is about.
//
// Each function returns text indented as it appears in an expanded source, for
// interpolation at the start of a line of an `expandedSource` literal:
//
// ```swift
// expandedSource: """
// final class Item {
//     var count: Int { ... }
//
// \(modelIdentityMembers(modelId: "1"))
//
//     enum PropertyId: Pathbase.PropertyKey, CaseIterable { ... }
//     ...
// }
//
// \(modelConformance("Item"))
// """
// ```

/// The members that give a model class its identity — `modelId`, `database`, `id` and the
/// required initializer — indented as class members.
///
/// `modelId` is the expression as written in `@Model(id:)`; `access` is the model's access
/// level (`"public"`, `"package"`, …) or `nil` for the default.
func modelIdentityMembers(modelId: String, access: String? = nil) -> String {
    let prefix = access.map { $0 + " " } ?? ""
    return """
            \(prefix)static var modelId: Pathbase.ModelKey {
                \(modelId)
            }

            \(prefix)let database: any Pathbase.Database

            \(prefix)let id: Pathbase.InstanceKey

            \(prefix)required init(database: any Pathbase.Database, id: Pathbase.InstanceKey) {
                self.database = database
                self.id = id
            }
        """
}

/// The extension that conforms a model class to the model protocols.
func modelConformance(_ className: String) -> String {
    """
    extension \(className): Pathbase.ModelProtocol, Pathbase.ModelWithPropertyIds {
    }
    """
}

/// The generated `_$propertyType` and `_$propertyKey` lookups and `_$description` of a model
/// class, indented as class members.
///
/// Each property is given by its id expression, its name and the type it is stored as (a
/// reference as `Pathbase.InstanceKey?`, a reference list as `[Pathbase.InstanceKey]`).
func propertyLookups(
    model: String,
    access: String? = nil,
    _ properties: [(id: String, name: String, storedType: String)]
) -> String {
    let prefix = access.map { $0 + " " } ?? ""
    // Each case as two lines: the case label inside `switch`, and its result below it.
    func cases(_ labelAndResult: ((id: String, name: String, storedType: String)) -> (String, String)) -> String {
        properties.map(labelAndResult).map { "        case \($0.0):\n            \($0.1)\n" }.joined()
    }
    let typeCases = cases { ($0.id, "\($0.storedType).self") }
    let keyCases = cases { ("\\\(model).\($0.name)", $0.id) }
    return """
            \(prefix)static func _$propertyType(_ property: Pathbase.PropertyKey) -> (any Pathbase.DatabaseValue.Type)? {
                switch property {
        \(typeCases)        default:
                    nil
                }
            }

            \(prefix)static func _$propertyKey(for keyPath: Swift.AnyKeyPath) -> Pathbase.PropertyKey? {
                switch keyPath {
        \(keyCases)        default:
                    nil
                }
            }

        \(modelDescription(model: model, access: access, properties))
        """
}

/// The generated `_$description` of a model class, indented as a class member: a reference's
/// kind follows from its stored type, a `@Property`'s type is its stored type.
private func modelDescription(model: String, access: String?, _ properties: [(id: String, name: String, storedType: String)]) -> String {
    let prefix = access.map { $0 + " " } ?? ""
    let entries = properties.map { property -> String in
        switch property.storedType {
        case "Pathbase.InstanceKey?": return ".reference(\(property.id), \"\(property.name)\", \\\(model).\(property.name))"
        case "[Pathbase.InstanceKey]": return ".referenceList(\(property.id), \"\(property.name)\", \\\(model).\(property.name))"
        default: return ".property(\(property.id), \"\(property.name)\", type: \"\(property.storedType)\")"
        }
    }
    return """
            \(prefix)static var _$description: Pathbase.ModelDescription {
                Pathbase.ModelDescription(
                    name: "\(model)",
                    properties: [
                        \(entries.joined(separator: ",\n                "))
                    ]
                )
            }
        """
}
