import SwiftDiagnostics

/// The errors the macros report, each with a message that says how to fix it.
enum PathbaseDiagnostic: DiagnosticMessage {
    case modelNotAClass(kind: String)
    case duplicatePropertyId(id: String, property: String, firstProperty: String)
    case idNotIntegerLiteral(attribute: String)
    case reservedPropertyId(attribute: String)
    case wrapperOnLet(attribute: String)
    case missingTypeAnnotation(attribute: String)
    case multipleBindings(attribute: String)
    case missingId(attribute: String)

    var message: String {
        switch self {
        case .modelNotAClass(let kind):
            return "@Model can only be applied to a class, not to \(kind)"
        case .duplicatePropertyId(let id, let property, let firstProperty):
            return "Property id \(id) of '\(property)' is already used by '\(firstProperty)'; each property of a model needs a unique id"
        case .idNotIntegerLiteral(let attribute):
            return "The id of @\(attribute) must be an integer literal, such as @\(attribute)(id: 1)"
        case .reservedPropertyId(let attribute):
            return "@\(attribute)(id: 0) is reserved for the instance status; use an id other than 0"
        case .wrapperOnLet(let attribute):
            return "@\(attribute) requires 'var': a stored property can change, so it cannot be a 'let'"
        case .missingTypeAnnotation(let attribute):
            return "@\(attribute) requires an explicit type annotation, such as 'var name: String'"
        case .multipleBindings(let attribute):
            return "@\(attribute) must be attached to a single property; declare each property separately"
        case .missingId(let attribute):
            return "@\(attribute) requires an id, such as @\(attribute)(id: 1)"
        }
    }

    var diagnosticID: MessageID {
        let name: String
        switch self {
        case .modelNotAClass: name = "modelNotAClass"
        case .duplicatePropertyId: name = "duplicatePropertyId"
        case .idNotIntegerLiteral: name = "idNotIntegerLiteral"
        case .reservedPropertyId: name = "reservedPropertyId"
        case .wrapperOnLet: name = "wrapperOnLet"
        case .missingTypeAnnotation: name = "missingTypeAnnotation"
        case .multipleBindings: name = "multipleBindings"
        case .missingId: name = "missingId"
        }
        return MessageID(domain: "Pathbase", id: name)
    }

    var severity: DiagnosticSeverity { .error }
}
