import Foundation
import Pathbase

/// A moment of the file's past as Studio's pages take it from a URL (`?at=`, `?from=`,
/// `?to=`): microseconds since 1970, or an ISO 8601 date with up to six fraction digits
/// (`2026-11-28T02:10:05.123456Z`), which is how pages print it.
struct StudioMoment: Equatable, Sendable {

    /// Microseconds since 1970.
    let microseconds: Int64

    init(microseconds: Int64) { self.microseconds = microseconds }

    /// Parses a parameter; `nil` for an empty one, a `StudioInputError` for anything else
    /// that is not a moment.
    init?(parameter: String?, name: String) throws(StudioInputError) {
        guard let text = parameter?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let number = Int64(text) {
            microseconds = number
            return
        }
        guard let parsed = Self.parseDate(text) else {
            throw StudioInputError("\(name) must be a date such as 2026-11-28T02:10:05.123456Z or microseconds since 1970, not '\(text)'")
        }
        microseconds = parsed
    }

    /// The latest timestamp at this moment: every write of its microsecond is seen.
    var timestamp: Timestamp { Timestamp(time: microseconds, counter: .max, replica: .max) }

    /// ISO 8601 with six fraction digits, in UTC.
    var text: String { Self.format(microseconds) }

    static func format(_ microseconds: Int64) -> String {
        let (seconds, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        let whole = fraction < 0 ? seconds - 1 : seconds
        let micros = fraction < 0 ? fraction + 1_000_000 : fraction
        let base = Date(timeIntervalSince1970: Double(whole)).formatted(.iso8601).dropLast()
        let digits = String(micros)
        return "\(base).\(String(repeating: "0", count: 6 - digits.count))\(digits)Z"
    }

    /// A record's timestamp as a page's `?after=` cursor: `time.counter.replica`.
    static func cursor(_ timestamp: Timestamp) -> String {
        "\(timestamp.time).\(timestamp.counter).\(timestamp.replica)"
    }

    /// Parses `?after=` (``cursor(_:)``); `nil` when empty.
    static func cursor(_ text: String?) throws(StudioInputError) -> Timestamp? {
        guard let text, !text.isEmpty else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let time = Int64(parts[0]), let counter = UInt32(parts[1]), let replica = UInt32(parts[2]) else {
            throw StudioInputError("after must be time.counter.replica, such as 1764295805123456.0.17, not '\(text)'")
        }
        return Timestamp(time: time, counter: counter, replica: replica)
    }

    private static func parseDate(_ text: String) -> Int64? {
        var text = text
        if text.hasSuffix("Z") { text.removeLast() }
        var fraction: Int64 = 0
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...]
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(\.isASCII), let value = Int64(digits) else { return nil }
            fraction = value * Int64(pow(10, Double(6 - digits.count)))
            text = String(text[..<dot])
        }
        // A browser's date-and-time field sends no seconds when they are zero.
        if text.count == 16 { text += ":00" }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        guard let date = formatter.date(from: text + "Z") else { return nil }
        return Int64(date.timeIntervalSince1970) * 1_000_000 + fraction
    }
}

/// A request parameter Studio cannot use: the page answers 400 with this message.
struct StudioInputError: Error, Equatable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
