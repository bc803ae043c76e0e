import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Shared expansion of `@Property`, `@Reference`, `@ReferenceList` and `@ReferenceDictionary`:
/// computed accessors
/// that read and write the model's database at the property's path.
protocol StoredPropertyMacro: AccessorMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String
    static func setter(id: String) -> String
    /// The accessors of a property with a merge policy; only `@Property` takes one.
    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> (getter: String, setter: String)?
}

extension StoredPropertyMacro {
    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> (getter: String, setter: String)? { nil }

    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let property = StoredProperty(attribute: node, declaration: variable)
        else { return [] }
        let problems = property.problems + property.mergeProblems
        guard problems.isEmpty, let idText = property.idText else {
            problems.forEach(context.diagnose)
            return []
        }
        let merged = property.merge.flatMap { mergedAccessors(id: idText, initializer: property.initializer, merge: $0) }
        var accessors: [AccessorDeclSyntax] = [
            "get { \(raw: merged?.getter ?? getter(id: idText, initializer: property.initializer)) }",
            "set { \(raw: merged?.setter ?? setter(id: idText)) }"
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

    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> (getter: String, setter: String)? {
        // Without an initial value, `.max` and `.min` read the type's natural default, and
        // a counter starts at 0.
        let defaultValue = initializer.map { "\($0)" } ?? "Pathbase._$defaultValue()"
        let initialCount = initializer.map { "\($0)" } ?? "0"
        switch merge {
        case .newestWins: return nil
        case .max: return ("_$getMaximum(\(id), default: \(defaultValue))", "_$setMaximum(newValue, \(id))")
        case .min: return ("_$getMinimum(\(id), default: \(defaultValue))", "_$setMinimum(newValue, \(id))")
        case .counter: return ("_$getCounter(\(id), default: \(initialCount))", "_$setCounter(newValue, \(id), default: \(initialCount))")
        case .union: return ("_$getUnion(\(id))", "_$setUnion(newValue, \(id))")
        }
    }
}

public struct ReferenceMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String { "_$reference(\(id))" }
    static func setter(id: String) -> String { "_$setReference(newValue, \(id))" }
}

public struct ReferenceListMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String { "_$referenceList(\(id))" }
    static func setter(id: String) -> String { "_$setReferenceList(newValue, \(id))" }

    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> (getter: String, setter: String)? {
        merge == .union ? ("_$referenceListUnion(\(id))", "_$setReferenceListUnion(newValue, \(id))") : nil
    }
}

public struct ReferenceDictionaryMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String { "_$referenceDictionary(\(id))" }
    static func setter(id: String) -> String { "_$setReferenceDictionary(newValue, \(id))" }
}
