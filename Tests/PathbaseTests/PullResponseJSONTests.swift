import Foundation
import Pathbase
import Testing

@Suite("Wire: a pull page written from stored JSON is JSONEncoder's page")
struct PullResponseJSONTests {

    private struct Nested: Codable {
        var name: String
        var tags: [String]
        var empty: [Int]
        var nothing: [String: Int]
        var scores: [String: Double]
        var inner: [String: [String: Bool]]
        var optional: String?
    }

    private static let strings = [
        "", "plain", "quote \" inside", "back\\slash", "a/b/c", "tab\tnew\nline\r", "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
        "é, 日本語, 🎉 and \u{2028}\u{2029}", "</script>", "\\u0041 literally", String(repeating: "long ", count: 200)
    ]

    /// Doubles whose JSON text no decoder reads as an integer.
    private static let fractionalDoubles: [Double] = [0.1, -1.5, 1e300, -1e-300, .leastNonzeroMagnitude, .pi, .greatestFiniteMagnitude, 123_456_789.125]

    /// Whole-number doubles: stored as `JSONEncoder` writes a `Double` (`1e+16`), which
    /// `JSONDecoder` reads back as an integer, so that the server's decode-and-encode wrote
    /// them as integers (`10000000000000000`), the page now as stored. Both read the same.
    private static let wholeDoubles: [Double] = [0, -0.0, 2, 1e16, 9_007_199_254_740_994]

    /// Records of every kind of value, through the same path as a push (canonical JSON);
    /// with `wholeDoubles`, values whose stored text the decoder reads as integers too.
    private static func records(wholeDoubles: Bool = false) throws -> [SyncRecord] {
        let doubles = fractionalDoubles + (wholeDoubles ? Self.wholeDoubles : [])
        var values: [any DatabaseValue] = strings.map { $0 as any DatabaseValue } + doubles.map { $0 as any DatabaseValue }
        values += [Int.min, Int.max, 0, -1, Int8.min, UInt64.max, UInt32.max, Float(0.1), true, false]
        values += [Data(), Data([0, 1, 2, 255]), Date(timeIntervalSinceReferenceDate: 12.5), InstanceStatus.created, NoValue()]
        values += [[Int](), [1, -2, Int.max], Optional<String>.none as any DatabaseValue]
        let scores: [String: Double] = wholeDoubles ? ["b": 0.1, "a": 1e16, "é": -0.0, "B": 2, "10": 1, "9": 3] : ["b": 0.1, "a": 1.5, "é": -2.25, "B": 1e-7, "10": 1e300, "9": 3.5]
        values += [
            Nested(
                name: "n/\"é\"", tags: strings, empty: [], nothing: [:], scores: scores,
                inner: ["z": ["y": true, "x": false], "": [:]], optional: nil)
        ]
        var records = try values.enumerated().map { index, value in
            let timestamp = Timestamp(time: Int64(index) * 1_000_003 - 5, counter: UInt32(index), replica: UInt32.max - UInt32(index))
            return try SyncRecord(Record(path: Path(model: 3, instance: -index, property: index), timestamp: timestamp, value: value))
        }
        // Type names that JSON escapes, and extreme paths and timestamps.
        for (index, name) in ["codable:My/Type", "codable:\"quoted\"", "codable:Ünïcode.Type", "codable:tab\t", "codable:" + String((0x20 ..< 0x7F).map { Character(UnicodeScalar(UInt8($0))) })]
            .enumerated()
        {
            records.append(
                SyncRecord(
                    path: Path(model: .max, instance: .min, property: index), timestamp: Timestamp(time: .min, counter: .max, replica: 0),
                    valueType: name, valueJSON: try SyncRecord(Record(path: Path(model: 1, instance: 1, property: 1), timestamp: Timestamp(time: 1), value: strings[index])).valueJSON))
        }
        return records
    }

    private static func encodedByJSONEncoder(_ response: PullResponse) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(response)
    }

    @Test("the same bytes as JSONEncoder with sorted keys, for values of every kind, escapes, unicode and extreme numbers")
    func sameBytes() throws {
        let records = try Self.records()
        let pages = [
            PullResponse(records: records, cursor: 9_000_000_001, hasMore: true, total: 9_000_000_900),
            PullResponse(records: records, cursor: 0, hasMore: false),
            PullResponse(records: [], cursor: 12, hasMore: false, total: 12),
            PullResponse(records: Array(records.prefix(1)), cursor: .max, hasMore: true, total: nil)
        ]
        for page in pages {
            let written = try page.sortedKeysJSON()
            let expected = try Self.encodedByJSONEncoder(page)
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
        // Each record alone, so that a difference names its value.
        for record in records {
            let page = PullResponse(records: [record], cursor: 1, hasMore: false, total: 1)
            #expect(try page.sortedKeysJSON() == Self.encodedByJSONEncoder(page), "\(record)")
        }
    }

    @Test("a written page reads as JSONEncoder's page does: the same records, value bytes and cursors, whole-number doubles included")
    func readsAsJSONEncodersPage() throws {
        let page = PullResponse(records: try Self.records(wholeDoubles: true), cursor: 77, hasMore: true, total: 99)
        let written = try JSONDecoder().decode(PullResponse.self, from: try page.sortedKeysJSON())
        let encoded = try JSONDecoder().decode(PullResponse.self, from: try Self.encodedByJSONEncoder(page))
        #expect(written == encoded)
        #expect(written.records.map(\.valueJSON) == encoded.records.map(\.valueJSON))
        #expect(written.records.map(\.key) == page.records.map(\.key))
        // Native values read back as they were written (a codable value's bytes are compared above).
        for (read, original) in zip(written.records, page.records) where !original.valueType.hasPrefix("codable:") {
            #expect(try String(describing: read.record().value) == String(describing: original.record().value), "\(original)")
        }
    }

    @Test("a string's canonical JSON stays JSONEncoder's, byte for byte, for every ASCII character and beyond, read and written")
    func stringBytesUnchanged() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let characters = (0 ... 0x7F).map { String(UnicodeScalar(UInt8($0))) } + ["é", "日", "🎉", "\u{2028}"]
        let texts = characters + characters.map { "a\($0)b" } + [String(characters.joined()), "", "Alice", "codable:My.Type"]
        for text in texts {
            let expected = try encoder.encode(text)
            let record = try SyncRecord(Record(path: Path(model: 1, instance: 2, property: 3), timestamp: Timestamp(time: 4), value: text))
            #expect(record.valueJSON == expected, "\(text.unicodeScalars.map(\.value))")
            #expect(try record.record().value as? String == text)
            // Through the wire: a pushed or pulled record stores the same bytes.
            let wire = try encoder.encode(PullResponse(records: [record], cursor: 1, hasMore: false))
            let pulled = try JSONDecoder().decode(PullResponse.self, from: wire)
            #expect(pulled.records.first?.valueJSON == expected)
            #expect(try pulled.records.first?.record().value as? String == text)
        }
    }
}
