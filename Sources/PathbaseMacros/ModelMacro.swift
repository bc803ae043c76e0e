import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model(id:)`: adds the members and conformance that make a class a stored model.
public struct ModelMacro: MemberMacro, ExtensionMacro {

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDeclaration = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: Syntax(node), message: PathbaseDiagnostic.modelNotAClass(kind: kindName(of: declaration))))
            return []
        }
        guard let modelId = node.arguments?.as(LabeledExprListSyntax.self)?.first(where: { $0.label?.text == "id" })?.expression else {
            context.diagnose(Diagnostic(node: Syntax(node), message: PathbaseDiagnostic.missingId(attribute: "Model")))
            return []
        }
        let access = accessModifier(of: classDeclaration)
        let properties = validProperties(of: classDeclaration, in: context)

        var members: [DeclSyntax] = [
            "\(raw: access)static var modelId: Pathbase.ModelKey { \(modelId.trimmed) }",
            "\(raw: access)let database: any Pathbase.Database",
            "\(raw: access)let id: Pathbase.InstanceKey",
            """
            \(raw: access)required init(database: any Pathbase.Database, id: Pathbase.InstanceKey) {
                self.database = database
                self.id = id
            }
            """
        ]

        let cases = properties.map { "case \($0.name ?? "") = \($0.idText ?? "")" }
        if cases.isEmpty {
            // An enum without cases cannot have a raw type; spell out the conformance.
            members.append(
                """
                \(raw: access)enum PropertyId: RawRepresentable, CaseIterable {
                    \(raw: access)init?(rawValue: Pathbase.PropertyKey) { nil }
                    \(raw: access)var rawValue: Pathbase.PropertyKey { switch self {} }
                }
                """
            )
        } else {
            members.append(
                """
                \(raw: access)enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                \(raw: cases.joined(separator: "\n"))
                }
                """
            )
        }

        let parameters = properties.map { property -> String in
            ", \(property.name ?? ""): \(property.type?.description ?? "") = \(property.defaultExpression)"
        }.joined()
        let assignments = properties.map { "instance.\($0.name ?? "") = \($0.name ?? "")" }.joined(separator: "\n")
        members.append(
            """
            /// Creates an instance in a database with every property set, as one batch
            /// and one undo step.
            @discardableResult
            \(raw: access)static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey\(raw: parameters)) -> Self {
                Pathbase._$inOneStep(database) {
                    let instance = database.create(id: id, of: Self.self)
                    \(raw: assignments)
                    return instance
                }
            }
            """
        )

        let resets = properties.map { "self.\($0.name ?? "") = \($0.defaultExpression)" }.joined(separator: "\n")
        members.append(
            """
            /// Writes the default value of every property, then marks the instance deleted.
            \(raw: access)func deleteAndClearProperties() {
                Pathbase._$inOneStep(self.database) {
                    \(raw: resets)
                    self.delete()
                }
            }
            """
        )

        if !properties.isEmpty {
            let typeCases = properties.map { "case \($0.idText ?? ""): \($0.storedTypeExpression)" }
            members.append(
                """
                \(raw: access)static func _$propertyType(_ property: Pathbase.PropertyKey) -> (any Pathbase.DatabaseValue.Type)? {
                    switch property {
                    \(raw: typeCases.joined(separator: "\n"))
                    default: nil
                    }
                }
                """
            )
        }

        if !properties.isEmpty {
            // Key path equality is structural, so a switch finds a stored property's id.
            let typeName = classDeclaration.name.trimmed.text
            // A property with a merge policy stores a state, not its value: filters on it run
            // in memory, on the values its getter reads.
            let keyCases = properties.filter { $0.merge == nil }.map { "case \\\(typeName).\($0.name ?? ""): \($0.idText ?? "")" }
            members.append(
                """
                \(raw: access)static func _$propertyKey(for keyPath: Swift.AnyKeyPath) -> Pathbase.PropertyKey? {
                    switch keyPath {
                    \(raw: keyCases.joined(separator: "\n"))
                    default: nil
                    }
                }
                """
            )
            // What a file's catalog records about the type, for tools (names, not ids).
            let entries = properties.map { $0.descriptionEntry(model: typeName) }
            members.append(
                """
                \(raw: access)static var _$description: Pathbase.ModelDescription {
                    Pathbase.ModelDescription(
                        name: \(raw: stringLiteral(typeName.filter { $0 != "`" })),
                        properties: [
                            \(raw: entries.joined(separator: ",\n            "))
                        ]
                    )
                }
                """
            )
        }

        let commands = validCommands(of: classDeclaration, properties: properties, in: context)
        if !commands.isEmpty {
            let commandCases = commands.map { command -> String in
                let decodes = command.parameters.map { "let \($0.argumentName) = try arguments.decode(\(typeExpression($0.type)).self)" }
                return (["case \(command.idText ?? ""):"] + decodes + ["return { \(command.call) }"]).joined(separator: "\n")
            }
            members.append(
                """
                \(raw: access)func _$command(_ command: Pathbase.CommandKey, arguments: inout any Swift.UnkeyedDecodingContainer) throws -> (() throws -> Void)? {
                    switch command {
                    \(raw: commandCases.joined(separator: "\n"))
                    default:
                        return nil
                    }
                }
                """
            )
        }
        return members
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let conformance: DeclSyntax = "extension \(type.trimmed): Pathbase.ModelProtocol, Pathbase.ModelWithPropertyIds {}"
        return conformance.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }

    /// The stored properties of a class that can be generated for; reports duplicate ids.
    /// Problems of single properties are reported by their own attribute macros.
    private static func validProperties(of declaration: ClassDeclSyntax, in context: some MacroExpansionContext) -> [StoredProperty] {
        var properties: [StoredProperty] = []
        var namesById: [Int: String] = [:]
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                let property = StoredProperty(declaration: variable),
                property.isValid, let id = property.id, let name = property.name
            else { continue }
            if let first = namesById[id] {
                context.diagnose(
                    Diagnostic(
                        node: Syntax(property.attribute),
                        message: PathbaseDiagnostic.duplicatePropertyId(id: property.idText ?? "\(id)", property: name, firstProperty: first)
                    ))
                continue
            }
            namesById[id] = name
            properties.append(property)
        }
        return properties
    }

    /// The valid `@Command` functions of a class; reports ids used twice or used by a
    /// property. Problems of single commands are reported by `@Command` itself.
    private static func validCommands(of declaration: ClassDeclSyntax, properties: [StoredProperty], in context: some MacroExpansionContext) -> [CommandFunction] {
        var propertiesById: [Int: String] = [:]
        for property in properties {
            if let id = property.id, let name = property.name { propertiesById[id] = name }
        }
        var commands: [CommandFunction] = []
        var namesById: [Int: String] = [:]
        for member in declaration.memberBlock.members {
            guard let function = member.decl.as(FunctionDeclSyntax.self),
                let command = CommandFunction(declaration: function),
                command.isValid, let id = command.id
            else { continue }
            let idText = command.idText ?? "\(id)"
            if let property = propertiesById[id] {
                context.diagnose(
                    Diagnostic(
                        node: Syntax(command.attribute),
                        message: PathbaseDiagnostic.commandIdUsedByProperty(id: idText, command: command.name, property: property)
                    ))
                continue
            }
            if let first = namesById[id] {
                context.diagnose(
                    Diagnostic(
                        node: Syntax(command.attribute),
                        message: PathbaseDiagnostic.duplicateCommandId(id: idText, command: command.name, firstCommand: first)
                    ))
                continue
            }
            namesById[id] = command.name
            commands.append(command)
        }
        return commands
    }

    /// The access modifier for generated members: the class's own (`open` becomes `public`,
    /// `private` becomes `fileprivate` so that the conformance can see the members).
    private static func accessModifier(of declaration: ClassDeclSyntax) -> String {
        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            case .keyword(.fileprivate), .keyword(.private): return "fileprivate "
            default: continue
            }
        }
        return ""
    }

    private static func kindName(of declaration: some DeclGroupSyntax) -> String {
        if declaration.is(StructDeclSyntax.self) { return "a struct" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ActorDeclSyntax.self) { return "an actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
        return "this declaration"
    }
}
