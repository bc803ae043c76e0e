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
    case reservedCommandId
    case duplicateCommandId(id: String, command: String, firstCommand: String)
    case commandIdUsedByProperty(id: String, command: String, property: String)
    case unsupportedCommandParameter(name: String, problem: String)
    case genericCommand
    case asyncCommand
    case staticCommand
    case unsupportedCommandModifier(String)
    case commandNotAFunction
    case commandOutsideModel
    case unknownMergePolicy(String)
    case counterNotInt(type: String)
    case referenceListMergePolicy(String)

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
        case .reservedCommandId:
            return "@Command(id: 0) is reserved for the instance status; use an id other than 0"
        case .duplicateCommandId(let id, let command, let firstCommand):
            return "Command id \(id) of '\(command)' is already used by '\(firstCommand)'; each command of a model needs a unique id"
        case .commandIdUsedByProperty(let id, let command, let property):
            return "Command id \(id) of '\(command)' is already used by property '\(property)'; commands and properties of a model share ids"
        case .unsupportedCommandParameter(let name, let problem):
            return "Parameter '\(name)' \(problem); command arguments are sent as data, so each must be a Codable value"
        case .genericCommand:
            return "@Command cannot be applied to a generic function: the receiving side must know the argument types"
        case .asyncCommand:
            return "@Command cannot be applied to an async function; start a task inside the command instead"
        case .staticCommand:
            return "@Command must be applied to an instance method: a command runs on one instance"
        case .unsupportedCommandModifier(let modifier):
            return "@Command cannot be applied to a '\(modifier)' function"
        case .commandNotAFunction:
            return "@Command can only be applied to a function"
        case .commandOutsideModel:
            return "@Command must be declared in the body of a @Model class, which dispatches received commands"
        case .unknownMergePolicy(let policy):
            return "'\(policy)' is not a merge policy; use .newestWins, .max, .min, .counter or .union"
        case .counterNotInt(let type):
            return "merge: .counter requires 'Int', not '\(type)': a counter adds up the changes of every replica"
        case .referenceListMergePolicy(let policy):
            return "@ReferenceList takes merge: .union, not '\(policy)'"
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
        case .reservedCommandId: name = "reservedCommandId"
        case .duplicateCommandId: name = "duplicateCommandId"
        case .commandIdUsedByProperty: name = "commandIdUsedByProperty"
        case .unsupportedCommandParameter: name = "unsupportedCommandParameter"
        case .genericCommand: name = "genericCommand"
        case .asyncCommand: name = "asyncCommand"
        case .staticCommand: name = "staticCommand"
        case .unsupportedCommandModifier: name = "unsupportedCommandModifier"
        case .commandNotAFunction: name = "commandNotAFunction"
        case .commandOutsideModel: name = "commandOutsideModel"
        case .unknownMergePolicy: name = "unknownMergePolicy"
        case .counterNotInt: name = "counterNotInt"
        case .referenceListMergePolicy: name = "referenceListMergePolicy"
        }
        return MessageID(domain: "Pathbase", id: name)
    }

    var severity: DiagnosticSeverity { .error }
}
