import SwiftDiagnostics
import SwiftSyntax

/// What a property wrapper macro stores.
enum StoredPropertyKind: String, CaseIterable {
    case property = "Property"
    case reference = "Reference"
    case referenceList = "ReferenceList"
    case referenceDictionary = "ReferenceDictionary"
}

/// A model property annotated with `@Property`, `@Reference`, `@ReferenceList` or
/// `@ReferenceDictionary`, as read
/// from the syntax tree, with whatever is wrong with it.
struct StoredProperty {
    let kind: StoredPropertyKind
    let attribute: AttributeSyntax
    let declaration: VariableDeclSyntax
    let name: String?
    let type: TypeSyntax?
    let initializer: ExprSyntax?
    /// The id as written, if it is an integer literal.
    let id: Int?
    let idText: String?
    let problems: [Diagnostic]

    var isValid: Bool { problems.isEmpty && name != nil && type != nil && id != nil }

    /// Reads the stored property an attribute is attached to; `nil` if the attribute is not
    /// one of the property wrapper macros.
    init?(attribute: AttributeSyntax, declaration: VariableDeclSyntax) {
        // `Property` or the qualified `Pathbase.Property`.
        let attributeName = attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
        guard let kind = StoredPropertyKind(rawValue: attributeName) else { return nil }
        self.kind = kind
        self.attribute = attribute
        self.declaration = declaration

        var problems: [Diagnostic] = []
        func report(_ node: some SyntaxProtocol, _ message: PathbaseDiagnostic) {
            problems.append(Diagnostic(node: Syntax(node), message: message))
        }

        let idArgument = IdArgument(of: attribute, attributeName: kind.rawValue, reserved: .reservedPropertyId(attribute: kind.rawValue), report: report)
        id = idArgument.value
        idText = idArgument.text

        if declaration.bindingSpecifier.tokenKind != .keyword(.var) {
            report(declaration.bindingSpecifier, .wrapperOnLet(attribute: kind.rawValue))
        }

        let bindings = declaration.bindings
        if bindings.count != 1 {
            report(declaration, .multipleBindings(attribute: kind.rawValue))
        }
        let binding = bindings.first
        name = binding?.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmedDescription
        type = binding?.typeAnnotation?.type.trimmed
        initializer = binding?.initializer?.value.trimmed
        if let binding, binding.typeAnnotation == nil {
            report(binding.pattern, .missingTypeAnnotation(attribute: kind.rawValue))
        }
        self.problems = problems
    }

    /// Reads the first property wrapper macro attached to a declaration.
    init?(declaration: VariableDeclSyntax) {
        for element in declaration.attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            if let property = StoredProperty(attribute: attribute, declaration: declaration) {
                self = property
                return
            }
        }
        return nil
    }

    /// The type the property's values are stored as, written as an expression.
    var storedTypeExpression: String {
        if let merged = mergeStoredTypeExpression { return merged }
        switch kind {
        case .property: return "\(type.map(typeExpression) ?? "Never").self"
        case .reference: return "Pathbase.InstanceKey?.self"
        case .referenceList: return "[Pathbase.InstanceKey].self"
        case .referenceDictionary:
            return "Pathbase._$referenceDictionaryStorage(\(type.map(typeExpression) ?? "Never").self)"
        }
    }

    /// The property's entry in the generated `_$description`: its id, name, kind, and its
    /// declared type or (for references, through a key path to it) its target model.
    func descriptionEntry(model: String) -> String {
        let id = idText ?? ""
        let shownName = stringLiteral((name ?? "").filter { $0 != "`" })
        switch kind {
        case .property: return ".property(\(id), \(shownName), type: \(stringLiteral(type.map(typeExpression) ?? "")))"
        case .reference: return ".reference(\(id), \(shownName), \\\(model).\(name ?? ""))"
        case .referenceList: return ".referenceList(\(id), \(shownName), \\\(model).\(name ?? ""))"
        case .referenceDictionary: return ".referenceDictionary(\(id), \(shownName), \\\(model).\(name ?? ""))"
        }
    }

    /// The expression for the property's value when nothing is stored.
    var defaultExpression: String {
        switch kind {
        case .property: return initializer.map { "(\($0))" } ?? "Pathbase._$defaultValue()"
        case .reference: return initializer.map { "(\($0))" } ?? "nil"
        case .referenceList: return initializer.map { "(\($0))" } ?? "Pathbase._$emptyList()"
        case .referenceDictionary: return initializer.map { "(\($0))" } ?? "[:]"
        }
    }
}

/// A string literal holding `text`.
func stringLiteral(_ text: String) -> String {
    var literal = "\""
    for character in text {
        switch character {
        case "\\": literal += "\\\\"
        case "\"": literal += "\\\""
        case "\n", "\r", "\r\n": literal += " "
        default: literal.append(character)
        }
    }
    return literal + "\""
}
