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
        let shown = text.unicodeScalars.count > 100 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(100))) + "…" : text
        switch Self.parseDate(text) {
        case .moment(let parsed): microseconds = parsed
        case .notADate:
            throw StudioInputError("\(name) must be a date such as 2026-11-28T02:10:05.123456Z or microseconds since 1970, not '\(shown)'")
        case .outOfRange:
            throw StudioInputError(
                "\(name) must be a moment a timestamp holds (microseconds since 1970 in 64 bits: from about year -290307 to 294246), not '\(shown)'")
        }
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

    /// Parses `?after=` (or another parameter `name`, in the format of ``cursor(_:)``);
    /// `nil` when empty.
    static func cursor(_ text: String?, name: String = "after") throws(StudioInputError) -> Timestamp? {
        guard let text, !text.isEmpty else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let time = Int64(parts[0]), let counter = UInt32(parts[1]), let replica = UInt32(parts[2]) else {
            let shown = text.unicodeScalars.count > 100 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(100))) + "…" : text
            throw StudioInputError("\(name) must be time.counter.replica, such as 1764295805123456.0.17, not '\(shown)'")
        }
        return Timestamp(time: time, counter: counter, replica: replica)
    }

    /// What ``parseDate(_:)`` found.
    private enum ParsedDate {
        case moment(Int64)
        case notADate
        /// A date whose microseconds since 1970 do not fit in an `Int64`.
        case outOfRange
    }

    /// Every step is checked: a date past about year 292 277 from 1970 either way is
    /// ``ParsedDate/outOfRange``, never an overflow.
    private static func parseDate(_ text: String) -> ParsedDate {
        var text = text
        if text.hasSuffix("Z") { text.removeLast() }
        var fraction: Int64 = 0
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...]
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits) else { return .notADate }
            fraction = value * [1, 10, 100, 1000, 10000, 100_000][6 - digits.count]
            text = String(text[..<dot])
        }
        // A browser's date-and-time field sends no seconds when they are zero.
        if text.count == 16 { text += ":00" }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        guard let date = formatter.date(from: text + "Z") else { return .notADate }
        let seconds = date.timeIntervalSince1970.rounded(.down)
        // Int64(exactly:) is nil for 2^63 and beyond (and for NaN): no trap.
        guard let whole = Int64(exactly: seconds) else { return .outOfRange }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1_000_000)
        let (sum, carry) = scaled.addingReportingOverflow(fraction)
        return overflow || carry ? .outOfRange : .moment(sum)
    }
}

/// A request parameter Studio cannot use: the page answers 400 with this message.
struct StudioInputError: Error, Equatable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
