import Foundation

/// HTML built by string interpolation in which every interpolated `String` is escaped:
/// values read from a user's file can never become markup. Only other `HTMLText`s (markup
/// we wrote) are inserted as they are.
///
/// ```swift
/// let cell: HTMLText = "<td>\(value)</td>"   // value "<script>" gives "<td>&lt;script&gt;</td>"
/// ```
struct HTMLText: ExpressibleByStringInterpolation, Sendable {

    /// The markup.
    private(set) var markup: String

    init(stringLiteral value: String) { markup = value }

    init(stringInterpolation: Interpolation) { markup = stringInterpolation.markup }

    /// Markup joined from parts.
    init(joining parts: [HTMLText]) { markup = parts.map(\.markup).joined() }

    struct Interpolation: StringInterpolationProtocol {
        var markup = ""
        init(literalCapacity: Int, interpolationCount: Int) { markup.reserveCapacity(literalCapacity * 2) }
        mutating func appendLiteral(_ literal: String) { markup += literal }
        /// Text: escaped.
        mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }
        /// Numbers need no escaping.
        mutating func appendInterpolation(_ number: some BinaryInteger) { markup += String(number) }
        /// Markup of ours.
        mutating func appendInterpolation(_ html: HTMLText) { markup += html.markup }
        mutating func appendInterpolation(_ parts: [HTMLText]) { markup += parts.map(\.markup).joined() }
    }
}

/// The one escaping function of Studio's pages.
enum HTML {

    /// `text` safe inside an element and inside a quoted attribute value.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A URL's query string from parameters (empty values left out), percent-encoded.
    static func query(_ parameters: [(String, String?)]) -> String {
        let parts = parameters.compactMap { name, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? "")"
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    private static let queryValueCharacters: CharacterSet = {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()
}
