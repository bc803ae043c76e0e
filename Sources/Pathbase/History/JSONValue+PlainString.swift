import Foundation

extension JSONValue {

    /// Whether `JSONEncoder` writes a string of these UTF-8 bytes as the bytes themselves
    /// between quotes: printable ASCII without `"` and `\` (escaped by JSON) and `/` (escaped
    /// by `JSONEncoder` too). Most values and type names are such strings, and writing or
    /// reading them needs no encoder.
    static func isPlain(_ utf8: some Sequence<UInt8>) -> Bool {
        utf8.allSatisfy { byte in
            byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "/")
        }
    }

    /// The string a JSON text of one plain string holds (see ``isPlain(_:)``), or `nil` for
    /// any other text.
    static func plainString(json: Data) -> String? {
        guard json.count >= 2, json.first == UInt8(ascii: "\""), json.last == UInt8(ascii: "\"") else { return nil }
        let characters = json.dropFirst().dropLast()
        return isPlain(characters) ? String(decoding: characters, as: UTF8.self) : nil
    }

    /// The JSON text `JSONEncoder` writes for a plain string (see ``isPlain(_:)``), or `nil`
    /// for a string that is not plain.
    static func plainJSON(string: String) -> Data? {
        guard isPlain(string.utf8) else { return nil }
        var json = Data(capacity: string.utf8.count + 2)
        json.append(UInt8(ascii: "\""))
        json.append(contentsOf: string.utf8)
        json.append(UInt8(ascii: "\""))
        return json
    }
}
