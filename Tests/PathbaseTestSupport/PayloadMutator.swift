import Foundation

/// Derives hostile payloads from valid ones, deterministically from a seed: truncations, bit
/// flips, inserted, deleted and duplicated ranges, splices of two payloads, JSON numbers and
/// strings replaced by edge cases, and now and then plain random bytes.
///
/// ```swift
/// var mutator = PayloadMutator(seed: 42)
/// let payload = mutator.mutate(oneOf: validMessages)
/// ```
public struct PayloadMutator {

    private(set) var random: SplitMix64

    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// Edge cases that replace a number or a string.
    public static let interesting = [
        "-1", "0", "1", "2", "2000", "2010", "9223372036854775807", "-9223372036854775808",
        "18446744073709551616", "1e308", "-1e308", "1.5", "null", "true", "\"\"", "\"x\"", "[]", "{}",
        "[1,2,3]", "[9223372036854775807,4294967295,4294967295]", "\"modelUpdate\"", "\"command\"",
        "\"instanceUpdateRequest\"", "\"error\"", "\"commandDone\"", "\"instanceStatuses\"",
        "\"pathbase-records\"", "\"Int\"", "\"String\"", "\"InstanceStatus\"", "\"[Int]\"", "\"nil\"",
        "\"codable:Address\"", "\"Data\"", "\"Date\"", "\"UInt8\""
    ]

    /// A random whole number in `range`.
    public mutating func number(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    /// A payload derived from one of `corpus` (or not at all) by one to three random edits.
    public mutating func mutate(oneOf corpus: [Data]) -> Data {
        if number(in: 0 ... 19) == 0 {
            return Data((0 ..< number(in: 0 ... 200)).map { _ in UInt8.random(in: 0 ... 255, using: &random) })
        }
        var bytes = [UInt8](corpus.randomElement(using: &random) ?? Data())
        for _ in 0 ..< number(in: 1 ... 3) {
            let count = bytes.count
            switch number(in: 0 ... 8) {
            case 0 where count > 0: // truncate
                bytes.removeSubrange(number(in: 0 ... count - 1)...)
            case 1 where count > 0: // flip bits
                for _ in 0 ..< number(in: 1 ... 4) {
                    bytes[number(in: 0 ... count - 1)] ^= 1 << UInt8.random(in: 0 ... 7, using: &random)
                }
            case 2: // insert random bytes
                let insert = (0 ..< number(in: 1 ... 8)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
                bytes.insert(contentsOf: insert, at: number(in: 0 ... count))
            case 3 where count > 1: // delete a range
                let start = number(in: 0 ... count - 1)
                bytes.removeSubrange(start ..< min(count, start + number(in: 1 ... 16)))
            case 4 where count > 1: // duplicate a range
                let start = number(in: 0 ... count - 1)
                let range = start ..< min(count, start + number(in: 1 ... 32))
                bytes.insert(contentsOf: bytes[range], at: number(in: 0 ... count))
            case 5: // splice with another payload
                let other = [UInt8](corpus.randomElement(using: &random) ?? Data())
                bytes = Array(bytes.prefix(number(in: 0 ... count))) + other.suffix(number(in: 0 ... other.count))
            case 6, 7: // replace a JSON number with an interesting token
                replaceToken(in: &bytes) { ($0 >= 48 && $0 <= 57) || $0 == 45 }
            case 8: // replace a JSON string with an interesting token
                replaceString(in: &bytes)
            default:
                break
            }
        }
        return Data(bytes)
    }

    private mutating func interestingToken() -> [UInt8] {
        Array((Self.interesting.randomElement(using: &random) ?? "0").utf8)
    }

    private mutating func replaceToken(in bytes: inout [UInt8], matching isPart: (UInt8) -> Bool) {
        let starts = bytes.indices.filter { isPart(bytes[$0]) && ($0 == 0 || !isPart(bytes[$0 - 1])) }
        guard let start = starts.randomElement(using: &random) else { return }
        var end = start
        while end < bytes.count, isPart(bytes[end]) { end += 1 }
        bytes.replaceSubrange(start ..< end, with: interestingToken())
    }

    private mutating func replaceString(in bytes: inout [UInt8]) {
        let quotes = bytes.indices.filter { bytes[$0] == 34 }
        guard quotes.count >= 2 else { return }
        let pair = number(in: 0 ... (quotes.count / 2 - 1)) * 2
        bytes.replaceSubrange(quotes[pair] ... quotes[pair + 1], with: interestingToken())
    }
}
