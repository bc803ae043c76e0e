import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Shared expansion of `@Property`, `@Reference`, `@ReferenceList` and `@ReferenceDictionary`:
/// computed accessors
/// that read and write the model's database at the property's path.
/// The accessor bodies of a property with a merge policy: `modify`, when present, is the
/// call that lands an in-place change (`likes += 1`) as a change from the value read when
/// the access began, given `old` and `value`.
struct MergedAccessors {
    var getter: String
    var setter: String
    var modify: String? = nil
}

protocol StoredPropertyMacro: AccessorMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String
    static func setter(id: String) -> String
    /// The accessors of a property with a merge policy; only `@Property` takes one.
    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> MergedAccessors?
}

extension StoredPropertyMacro {
    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> MergedAccessors? { nil }

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
        if let modify = merged?.modify {
            // An in-place change lands as a difference, so that changes made meanwhile
            // (other threads, pulled records) are kept.
            accessors.append(
                """
                _modify {
                    var value\(raw: property.type.map { ": \($0)" } ?? "") = \(raw: merged?.getter ?? "")
                    let old = value
                    yield &value
                    \(raw: modify)
                }
                """)
        }
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

    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> MergedAccessors? {
        // Without an initial value, `.max` and `.min` read the type's natural default, and
        // a counter starts at 0.
        let defaultValue = initializer.map { "\($0)" } ?? "Pathbase._$defaultValue()"
        let initialCount = initializer.map { "\($0)" } ?? "0"
        switch merge {
        case .newestWins: return nil
        case .max: return MergedAccessors(getter: "_$getMaximum(\(id), default: \(defaultValue))", setter: "_$setMaximum(newValue, \(id))")
        case .min: return MergedAccessors(getter: "_$getMinimum(\(id), default: \(defaultValue))", setter: "_$setMinimum(newValue, \(id))")
        case .counter:
            return MergedAccessors(
                getter: "_$getCounter(\(id), default: \(initialCount))", setter: "_$setCounter(newValue, \(id), default: \(initialCount))",
                modify: "_$modifyCounter(from: old, to: value, \(id))")
        case .union: return MergedAccessors(getter: "_$getUnion(\(id))", setter: "_$setUnion(newValue, \(id))", modify: "_$modifyUnion(from: old, to: value, \(id))")
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

    static func mergedAccessors(id: String, initializer: ExprSyntax?, merge: MergePolicyName) -> MergedAccessors? {
        guard merge == .union else { return nil }
        return MergedAccessors(
            getter: "_$referenceListUnion(\(id))", setter: "_$setReferenceListUnion(newValue, \(id))",
            modify: "_$modifyReferenceListUnion(from: old, to: value, \(id))")
    }
}

public struct ReferenceDictionaryMacro: StoredPropertyMacro {
    static func getter(id: String, initializer: ExprSyntax?) -> String { "_$referenceDictionary(\(id))" }
    static func setter(id: String) -> String { "_$setReferenceDictionary(newValue, \(id))" }
}
