import Foundation
import Pathbase
import Hummingbird
import NIOCore

/// What one request body may hold, checked before it is decoded: JSON decoding costs grow
/// with nesting and element count, so a body too deep or too large is refused by a scan of
/// its bytes (linear, no allocation) instead of by a decode that fails late.
///
/// ```swift
/// try RequestLimits().check(json: bytes) // ErrorReason 400 (too deep) or 413 (too many values)
/// ```
public struct RequestLimits: Sendable, Hashable {

    /// The deepest nesting of arrays and objects a body may have (the body itself is depth 1;
    /// a record's value sits at depth 4 of a push).
    public var maximumDepth: Int

    /// The most JSON values (array elements and object members, counted by their
    /// separators) a body may hold.
    public var maximumValues: Int

    /// The largest encoded value of one record, in bytes; a larger one is rejected per
    /// record with a reason.
    public var maximumValueSize: Int

    /// The most requests of one account answered at once; more get 429 with `Retry-After`.
    public var maximumConcurrentRequestsPerAccount: Int

    /// Limits that a push of 1000 records with values of a few kB passes: 64 levels,
    /// 250 000 values, values up to 1 MB, 16 requests of one account at once.
    public init(maximumDepth: Int = 64, maximumValues: Int = 250_000, maximumValueSize: Int = 1 << 20, maximumConcurrentRequestsPerAccount: Int = 16) {
        self.maximumDepth = maximumDepth
        self.maximumValues = maximumValues
        self.maximumValueSize = maximumValueSize
        self.maximumConcurrentRequestsPerAccount = maximumConcurrentRequestsPerAccount
    }

    /// Throws an ``ErrorReason`` (400 too deep, 413 too many values) for a JSON body past
    /// the limits. Bytes inside strings are skipped; anything else is left to the decoder.
    public func check(json bytes: ByteBuffer) throws {
        try bytes.withUnsafeReadableBytes { try check(json: $0) }
    }

    /// ``check(json:)-(ByteBuffer)`` on raw bytes.
    public func check(json bytes: UnsafeRawBufferPointer) throws {
        var depth = 0
        var values = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                values += 1
                guard depth <= maximumDepth else {
                    throw ErrorReason(status: .badRequest, reason: "The body nests arrays and objects more than \(maximumDepth) deep")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            case UInt8(ascii: ","):
                values += 1
            default:
                continue
            }
            guard values <= maximumValues else {
                throw ErrorReason(status: .contentTooLarge, reason: "The body holds more than \(maximumValues) JSON values; send fewer records at once")
            }
        }
    }
}

/// The requests of each account being answered, to refuse an account more than its share
/// (429) before it takes the server's time from the others.
final class AccountAdmission: Sendable {

    private let inFlight = Locked<[AccountID: Int]>([:])
    private let maximum: Int

    init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    /// Takes a place for a request of `account`, or throws a 429 ``ErrorReason``; each place
    /// taken is given back with ``leave(_:)``.
    func enter(_ account: AccountID) throws {
        let maximum = maximum
        let admitted = inFlight.withLock { inFlight in
            let count = inFlight[account, default: 0]
            guard count < maximum else { return false }
            inFlight[account] = count + 1
            return true
        }
        guard admitted else {
            throw ErrorReason(status: .tooManyRequests, reason: "This account has \(maximum) requests under way; retry after the Retry-After seconds", retryAfter: 1)
        }
    }

    /// Gives back the place of a request of `account`.
    func leave(_ account: AccountID) {
        inFlight.withLock { inFlight in
            let count = inFlight[account, default: 1] - 1
            inFlight[account] = count > 0 ? count : nil
        }
    }
}
