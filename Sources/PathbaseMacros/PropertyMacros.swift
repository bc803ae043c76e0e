import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Shared expansion of `@Property`, `@Reference`, `@ReferenceList` and `@ReferenceDictionary`:
/// computed accessors
/// that read and write the model's database at the property's path.
protocol StoredPropertyMacro: AccessorMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String
    static func setter(id: String) -> String
}

extension StoredPropertyMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let property = StoredProperty(attribute: node, declaration: variable)
        else { return [] }
        guard property.problems.isEmpty, let idText = property.idText else {
            property.problems.forEach(context.diagnose)
            return []
        }
        var accessors: [AccessorDeclSyntax] = [
            "get { \(raw: getter(id: idText, initializer: property.initializer)) }",
            "set { \(raw: setter(id: idText)) }"
        ]
        if property.initializer != nil {
            // The initial value is the default read when nothing is stored; the init
            // accessor lets the declaration keep its `= value` without any storage.
            accessors.append("init(initialValue) { }")
        }
        return accessors
    }
}

public struct PropertyMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String {
        if let initializer { return "_$get(\(id), default: \(initializer))" }
        return "_$get(\(id))"
    }

    static func setter(id: String) -> String { "_$set(newValue, \(id))" }
}

public struct ReferenceMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String { "_$reference(\(id))" }
    static func setter(id: String) -> String { "_$setReference(newValue, \(id))" }
}

public struct ReferenceListMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String { "_$referenceList(\(id))" }
    static func setter(id: String) -> String { "_$setReferenceList(newValue, \(id))" }
}

public struct ReferenceDictionaryMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String { "_$referenceDictionary(\(id))" }
    static func setter(id: String) -> String { "_$setReferenceDictionary(newValue, \(id))" }
}
