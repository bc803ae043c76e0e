import SwiftDiagnostics
import SwiftSyntax

/// The merge policy of a `@Property(id:merge:)`, as written.
enum MergePolicyName: String {
    case newestWins, max, min, counter, union
}

extension StoredProperty {

    /// The `merge:` argument of a `@Property` (`.max`, `MergePolicy.max` or
    /// `Pathbase.MergePolicy.max`); `nil` for newest wins, written or not.
    var merge: MergePolicyName? {
        guard let name = mergeArgument.flatMap(Self.policyName(of:)) else { return nil }
        let policy = MergePolicyName(rawValue: name)
        return policy == .newestWins ? nil : policy
    }

    /// What is wrong with the `merge:` argument: a policy that does not exist, a counter of
    /// another type than `Int`, or a reference list with another policy than `.union`.
    var mergeProblems: [Diagnostic] {
        guard let expression = mergeArgument else { return [] }
        guard let name = Self.policyName(of: expression), let policy = MergePolicyName(rawValue: name) else {
            return [Diagnostic(node: Syntax(expression), message: PathbaseDiagnostic.unknownMergePolicy(expression.trimmedDescription))]
        }
        if kind == .referenceList, policy != .union, policy != .newestWins {
            return [Diagnostic(node: Syntax(expression), message: PathbaseDiagnostic.referenceListMergePolicy(expression.trimmedDescription))]
        }
        if policy == .counter, let type, !["Int", "Swift.Int"].contains(type.trimmedDescription) {
            return [Diagnostic(node: Syntax(expression), message: PathbaseDiagnostic.counterNotInt(type: type.trimmedDescription))]
        }
        return []
    }

    /// The type the property stores with its merge policy, written as an expression; `nil`
    /// without a policy.
    var mergeStoredTypeExpression: String? {
        guard let merge else { return nil }
        if kind == .referenceList { return merge == .union ? "Pathbase.UnionValue<Pathbase.InstanceKey>.self" : nil }
        guard kind == .property else { return nil }
        let type = "\(self.type.map(typeExpression) ?? "Never").self"
        switch merge {
        case .newestWins: return nil
        case .max: return "Pathbase._$maximumStorage(\(type))"
        case .min: return "Pathbase._$minimumStorage(\(type))"
        case .counter: return "Pathbase.CounterValue.self"
        case .union: return "Pathbase._$unionStorage(\(type))"
        }
    }

    private var mergeArgument: ExprSyntax? {
        guard kind == .property || kind == .referenceList else { return nil }
        return attribute.arguments?.as(LabeledExprListSyntax.self)?.first(where: { $0.label?.text == "merge" })?.expression
    }

    private static func policyName(of expression: ExprSyntax) -> String? {
        expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
    }
}
