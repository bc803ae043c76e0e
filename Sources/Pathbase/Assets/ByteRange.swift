import Foundation

/// One range of an HTTP `Range: bytes=…` header (RFC 9110 §14.1.2), as asset downloads take
/// it: the sync server's `GET /v1/assets/HASH` and Pathbase Studio's asset previews parse it
/// here.
///
/// ```swift
/// ByteRange(header: "bytes=10-19")          // .from(10, through: 19)
/// ByteRange(header: "bytes=10-")            // .from(10, through: nil): to the end
/// ByteRange(header: "bytes=-5")             // .suffix(5): the last 5 bytes
/// ByteRange(header: "bytes=0-1,5-6")        // nil: one range only
/// ByteRange(header: "bytes=5-1")            // nil: ends before it starts
/// ```
package enum ByteRange: Equatable, Sendable {

    /// `bytes=START-END` (END inclusive) or `bytes=START-` (END `nil`: to the end).
    case from(Int64, through: Int64?)

    /// `bytes=-COUNT`: the last COUNT bytes (COUNT > 0).
    case suffix(Int64)

    /// The range of a header holding exactly one well-formed byte range; `nil` otherwise
    /// (another unit, several ranges, a number that is not one or overflows `Int64`, an
    /// end before the start, an empty suffix).
    package init?(header: String) {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let bounds = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return nil }
        let startText = bounds[0].trimmingCharacters(in: .whitespaces)
        let endText = bounds[1].trimmingCharacters(in: .whitespaces)
        if startText.isEmpty {
            guard let count = Int64(endText), count > 0 else { return nil }
            self = .suffix(count)
            return
        }
        guard let start = Int64(startText), start >= 0 else { return nil }
        if endText.isEmpty {
            self = .from(start, through: nil)
            return
        }
        guard let end = Int64(endText), end >= start else { return nil }
        self = .from(start, through: end)
    }

    /// The bytes this range selects in content of `size` bytes, an end past the content cut
    /// at its last byte; `nil` when it selects none (a start at or past the end, or empty
    /// content): an HTTP server answers 416 Range Not Satisfiable.
    package func bytes(in size: Int64) -> ClosedRange<Int64>? {
        guard size > 0 else { return nil }
        switch self {
        case .from(let start, let end):
            let last = min(end ?? size - 1, size - 1)
            guard start <= last else { return nil }
            return start ... last
        case .suffix(let count):
            return max(0, size - count) ... size - 1
        }
    }
}
