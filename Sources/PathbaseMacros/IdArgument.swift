import SwiftDiagnostics
import SwiftSyntax

/// The `id:` argument of `@Property`, `@Reference`, `@ReferenceList` and `@Command`: an
/// integer literal other than 0 (0 is reserved). Reads it and reports what is wrong with it.
struct IdArgument {

    /// The id, when it is an integer literal.
    let value: Int?

    /// The literal as written (`0x10`, `1_000`), kept for the generated code.
    let text: String?

    /// Reads the `id:` argument of `attribute` (named `attributeName` in diagnostics);
    /// an id of 0 is reported as `reserved`.
    init(of attribute: AttributeSyntax, attributeName: String, reserved: PathbaseDiagnostic, report: (Syntax, PathbaseDiagnostic) -> Void) {
        let expression = attribute.arguments?.as(LabeledExprListSyntax.self)?
            .first(where: { $0.label?.text == "id" })?.expression
        guard let expression else {
            (value, text) = (nil, nil)
            report(Syntax(attribute), .missingId(attribute: attributeName))
            return
        }
        guard let literal = expression.as(IntegerLiteralExprSyntax.self), let value = integerValue(of: literal.literal.text) else {
            (value, text) = (nil, nil)
            report(Syntax(expression), .idNotIntegerLiteral(attribute: attributeName))
            return
        }
        (self.value, text) = (value, literal.literal.text)
        if value == 0 { report(Syntax(expression), reserved) }
    }
}

/// The value of an integer literal as written: decimal, or with a 0x, 0o or 0b prefix.
func integerValue(of literal: String) -> Int? {
    let digits = literal.filter { $0 != "_" }
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where digits.hasPrefix(prefix) {
        return Int(digits.dropFirst(2), radix: radix)
    }
    return Int(digits)
}
