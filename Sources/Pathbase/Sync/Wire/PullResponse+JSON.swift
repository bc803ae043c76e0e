import Foundation

extension PullResponse {

    /// The response as JSON, byte for byte what `JSONEncoder` with `.sortedKeys` writes for
    /// it, without decoding and encoding each record's value again: a value's canonical JSON
    /// (``SyncRecord/valueJSON``, sorted keys) is what the encoder would write for it, so it
    /// is copied as it is.
    ///
    /// ```swift
    /// let body = try response.sortedKeysJSON() // == JSONEncoder (sorted keys).encode(response)
    /// ```
    ///
    /// A sync server answers a pull with it: encoding a page through `JSONEncoder` parsed
    /// every stored value only to write the same bytes. The stored values must be JSON, as
    /// every record decoded from a push or made from a ``Record`` is. A `type` with
    /// characters JSON escapes is written by `JSONEncoder` itself, so escaping stays its own.
    package func sortedKeysJSON() throws -> Data {
        var writer = SortedKeysJSONWriter(capacity: 64 + records.reduce(0) { $0 + 80 + $1.valueType.utf8.count + $1.valueJSON.count })
        writer.append(#"{"cursor":"#)
        writer.append(integer: cursor)
        writer.append(hasMore ? #","hasMore":true,"records":["# : #","hasMore":false,"records":["#)
        for (index, record) in records.enumerated() {
            writer.append(index == 0 ? #"{"path":"# : #",{"path":"#)
            writer.append(integers: record.path.model, record.path.instance, record.path.property)
            writer.append(#","timestamp":"#)
            writer.append(integers: record.timestamp.time, record.timestamp.counter, record.timestamp.replica)
            writer.append(#","type":"#)
            try writer.append(string: record.valueType)
            writer.append(#","value":"#)
            writer.bytes.append(contentsOf: record.valueJSON)
            writer.append("}")
        }
        writer.append("]")
        if let total {
            writer.append(#","total":"#)
            writer.append(integer: total)
        }
        writer.append("}")
        return Data(writer.bytes)
    }
}

/// The bytes of a JSON text written piece by piece, as `JSONEncoder` writes them.
private struct SortedKeysJSONWriter {

    var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// JSON syntax, written as it is.
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// An integer in decimal, as `JSONEncoder` writes it.
    mutating func append(integer: some BinaryInteger) {
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(integer.magnitude)
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// Three integers as a JSON array, as `JSONEncoder` writes ``Path`` and ``Timestamp``
    /// (their Codable forms are unkeyed containers of three numbers).
    mutating func append(integers first: some BinaryInteger, _ second: some BinaryInteger, _ third: some BinaryInteger) {
        append("[")
        append(integer: first)
        append(",")
        append(integer: second)
        append(",")
        append(integer: third)
        append("]")
    }

    /// A string: as it is between quotes when it is plain (``JSONValue/isPlain(_:)``),
    /// otherwise as `JSONEncoder` writes it.
    mutating func append(string: String) throws {
        if JSONValue.isPlain(string.utf8) {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: string.utf8)
            bytes.append(UInt8(ascii: "\""))
        } else {
            bytes.append(contentsOf: try JSONEncoder().encode(string))
        }
    }
}
