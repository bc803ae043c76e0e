import SwiftDiagnostics
import SwiftSyntax

/// A model function annotated with `@Command`, as read from the syntax tree, with whatever
/// is wrong with it.
struct CommandFunction {

    /// One parameter: how it is labelled at a call, what it is called inside the generated
    /// function, and its type.
    struct Parameter {
        let declaration: FunctionParameterSyntax
        /// The argument label, or `nil` for `_`.
        let label: String?
        /// The name of the decoded argument in generated code.
        let argumentName: String
        let type: TypeSyntax
    }

    let attribute: AttributeSyntax
    let declaration: FunctionDeclSyntax
    let name: String
    let parameters: [Parameter]
    let isThrowing: Bool
    /// The id as written, if it is an integer literal.
    let id: Int?
    let idText: String?
    let problems: [Diagnostic]

    var isValid: Bool { problems.isEmpty && id != nil }

    /// Reads the command an attribute is attached to; `nil` if the attribute is not
    /// `@Command`.
    init?(attribute: AttributeSyntax, declaration: FunctionDeclSyntax) {
        guard CommandFunction.isCommandAttribute(attribute) else { return nil }
        self.attribute = attribute
        self.declaration = declaration
        name = declaration.name.text

        var problems: [Diagnostic] = []
        func report(_ node: some SyntaxProtocol, _ message: PathbaseDiagnostic) {
            problems.append(Diagnostic(node: Syntax(node), message: message))
        }

        let idArgument = IdArgument(of: attribute, attributeName: "Command", reserved: .reservedCommandId, report: report)
        id = idArgument.value
        idText = idArgument.text

        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class): report(modifier, .staticCommand)
            case .keyword(.mutating): report(modifier, .unsupportedCommandModifier(modifier.name.text))
            default: continue
            }
        }
        if let generics = declaration.genericParameterClause {
            report(generics, .genericCommand)
        }
        let effects = declaration.signature.effectSpecifiers
        if let async = effects?.asyncSpecifier {
            report(async, .asyncCommand)
        }
        isThrowing = effects?.throwsClause != nil

        var parameters: [Parameter] = []
        for (index, parameter) in declaration.signature.parameterClause.parameters.enumerated() {
            let internalName = (parameter.secondName ?? parameter.firstName).text
            let label = parameter.firstName.text == "_" ? nil : parameter.firstName.text
            if let problem = CommandFunction.problem(with: parameter) {
                report(parameter, .unsupportedCommandParameter(name: internalName, problem: problem))
            }
            parameters.append(
                Parameter(
                    declaration: parameter,
                    label: label,
                    argumentName: "argument\(index)",
                    type: parameter.type.trimmed
                ))
        }
        self.parameters = parameters
        self.problems = problems
    }

    /// Reads the first `@Command` attached to a function.
    init?(declaration: FunctionDeclSyntax) {
        for element in declaration.attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            if let command = CommandFunction(attribute: attribute, declaration: declaration) {
                self = command
                return
            }
        }
        return nil
    }

    /// Whether an attribute is `@Command` or the qualified `@Pathbase.Command`.
    static func isCommandAttribute(_ attribute: AttributeSyntax) -> Bool {
        attribute.attributeName.trimmedDescription.split(separator: ".").last == "Command"
    }

    /// Why a parameter cannot be sent as a command argument, or `nil` if it can.
    private static func problem(with parameter: FunctionParameterSyntax) -> String? {
        if parameter.ellipsis != nil { return "is variadic" }
        var type = parameter.type
        if let attributed = type.as(AttributedTypeSyntax.self) {
            for specifier in attributed.specifiers {
                if case .simpleTypeSpecifier(let simple) = specifier, simple.specifier.tokenKind == .keyword(.inout) {
                    return "is inout"
                }
            }
            type = attributed.baseType
        }
        if let wrapped = type.as(OptionalTypeSyntax.self)?.wrappedType ?? type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self)?.wrappedType {
            type = wrapped
        }
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first {
            type = only.type
        }
        if type.is(FunctionTypeSyntax.self) { return "is a closure" }
        if let someOrAny = type.as(SomeOrAnyTypeSyntax.self) {
            return someOrAny.someOrAnySpecifier.tokenKind == .keyword(.some) ? "has an opaque 'some' type" : "has an existential 'any' type"
        }
        if type.is(MetatypeTypeSyntax.self) { return "is a metatype" }
        if type.is(TupleTypeSyntax.self) { return "is a tuple" }
        return nil
    }

    /// The generated function's parameters: as declared, with a name for unnamed ones.
    var commandParameterClause: String {
        parameters.map { parameter -> String in
            let declaration = parameter.declaration.with(\.trailingComma, nil)
            let internalName = (declaration.secondName ?? declaration.firstName).text
            guard internalName == "_" else { return declaration.trimmedDescription }
            return
                declaration
                .with(\.secondName, .identifier(parameter.argumentName))
                .with(\.firstName, declaration.firstName.with(\.trailingTrivia, .space))
                .trimmedDescription
        }.joined(separator: ", ")
    }

    /// The expressions passed as arguments by the generated function, in order.
    var argumentExpressions: [String] {
        parameters.map { parameter in
            let declaration = parameter.declaration
            let internalName = (declaration.secondName ?? declaration.firstName).text
            return internalName == "_" ? parameter.argumentName : internalName
        }
    }

    /// The call of the function with decoded arguments, as generated in `_$command`.
    var call: String {
        let arguments = parameters.map { parameter in
            parameter.label.map { "\($0): \(parameter.argumentName)" } ?? parameter.argumentName
        }.joined(separator: ", ")
        return "\(returnsValue ? "_ = " : "")\(isThrowing ? "try " : "")self.\(name)(\(arguments))"
    }

    /// Whether the function declares a result other than `Void`, which the call discards.
    private var returnsValue: Bool {
        guard let type = declaration.signature.returnClause?.type.trimmedDescription else { return false }
        return !["Void", "()", "Swift.Void"].contains(type)
    }
}

/// The type written in an expression: `T!` becomes `Optional<T>`, since `T!.self` is not an
/// expression.
func typeExpression(_ type: TypeSyntax) -> String {
    if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
        return "Optional<\(unwrapped.wrappedType.trimmedDescription)>"
    }
    return type.trimmedDescription
}
