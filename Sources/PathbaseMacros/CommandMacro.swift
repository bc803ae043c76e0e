import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Command(id:)`: adds `<name>Command(…)` next to a model function, returning the call as
/// an `InstanceCommand` to encode and run elsewhere. `@Model` generates the dispatch that
/// runs received commands (`_$command`), and reports ids that collide.
public struct CommandMacro: PeerMacro {

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let function = declaration.as(FunctionDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: Syntax(node), message: PathbaseDiagnostic.commandNotAFunction))
            return []
        }
        guard let enclosing = context.lexicalContext.first, enclosing.is(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: Syntax(node), message: PathbaseDiagnostic.commandOutsideModel))
            return []
        }
        guard let command = CommandFunction(attribute: node, declaration: function) else { return [] }
        guard command.problems.isEmpty, let idText = command.idText else {
            command.problems.forEach(context.diagnose)
            return []
        }
        let access = accessModifier(of: function)
        let arguments = command.argumentExpressions.joined(separator: ", ")
        return [
            """
            /// Creates a command that runs `\(raw: command.name)` on this instance where it is received.
            \(raw: access)func \(raw: command.name)Command(\(raw: command.commandParameterClause)) -> Pathbase.InstanceCommand {
                Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: \(raw: idText), arguments: [\(raw: arguments)])
            }
            """
        ]
    }

    /// The function's access modifier for the generated one (`open` becomes `public`).
    private static func accessModifier(of function: FunctionDeclSyntax) -> String {
        for modifier in function.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            case .keyword(.fileprivate): return "fileprivate "
            case .keyword(.private): return "private "
            default: continue
            }
        }
        return ""
    }
}
