import Foundation
import Pathbase
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// How long and how much a connection may take before it is closed: the limits a client on
/// the internet meets before a byte of its request reaches a route.
///
/// ```swift
/// let limits = ConnectionLimits(headerTimeout: .seconds(10), maximumConnections: 2000)
/// let http = SyncHTTPServer(server: server, port: 8080, connectionLimits: limits)
/// ```
///
/// The defaults let a phone on a slow network through (20 s for a request's headers, 60 s
/// of silence between requests) and keep a slowloris attack, headers sent a byte at a time
/// on many connections, from holding the server.
public struct ConnectionLimits: Sendable, Hashable {

    /// The longest a new connection may take to send its first request's headers (the TLS
    /// handshake included); then it is closed.
    public var headerTimeout: Duration

    /// The longest a connection may stay silent between requests (or while sending a later
    /// request's headers or a body); then it is closed. WebSockets are kept alive by pings.
    public var idleTimeout: Duration

    /// The largest request head (request line and headers), in bytes; a larger one gets 431
    /// and the connection is closed.
    public var maximumHeaderSize: Int

    /// The most connections open at once; more are answered 503 and closed.
    public var maximumConnections: Int

    /// The most connections from one IP address open at once; more are answered 503 and closed.
    public var maximumConnectionsPerAddress: Int

    /// Limits with defaults a phone on a slow network passes.
    public init(
        headerTimeout: Duration = .seconds(20), idleTimeout: Duration = .seconds(60), maximumHeaderSize: Int = 32 << 10, maximumConnections: Int = 4096, maximumConnectionsPerAddress: Int = 256
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maximumHeaderSize = maximumHeaderSize
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }
}

/// The connections open now, in all and per address; and how many the guard closed.
final class ConnectionCounter: Sendable {

    private struct State {
        var total = 0
        var perAddress: [String: Int] = [:]
        var closedSlow = 0
        var closedMalformed = 0
        var refused = 0
    }

    private let state = Locked(State())

    /// Counts a new connection from `address`, or returns `false` (and counts nothing) when
    /// it would pass a limit.
    func open(from address: String, limits: ConnectionLimits) -> Bool {
        state.withLock { state in
            let fromAddress = state.perAddress[address, default: 0]
            guard state.total < limits.maximumConnections, fromAddress < limits.maximumConnectionsPerAddress else {
                state.refused += 1
                return false
            }
            state.total += 1
            state.perAddress[address] = fromAddress + 1
            return true
        }
    }

    /// Counts a connection of `address` closed.
    func close(from address: String) {
        state.withLock { state in
            state.total -= 1
            let left = state.perAddress[address, default: 1] - 1
            state.perAddress[address] = left > 0 ? left : nil
        }
    }

    func noteSlow() { state.withLock { $0.closedSlow += 1 } }
    func noteMalformed() { state.withLock { $0.closedMalformed += 1 } }

    /// Connections open, closed for slow headers, closed for malformed heads, refused.
    var counts: (open: Int, slow: Int, malformed: Int, refused: Int) {
        state.withLock { ($0.total, $0.closedSlow, $0.closedMalformed, $0.refused) }
    }
}

/// The first handler of every connection (inside TLS): counts it against the connection
/// limits, closes it when its first request's headers do not arrive within the header
/// timeout, and answers a first request head that is too large or malformed (a NUL, a CR
/// without LF, a control or non-ASCII byte in the request line) with 431 or 400 and a
/// reason, then closes it; so does a first head whose `Content-Length` is not one decimal
/// number (400). Later requests of a connection are left to Hummingbird, which
/// answers a parse error with 400 and closes, and times out idle connections.
///
/// It also gives a refused WebSocket upgrade its reason: Hummingbird answers an upgrade its
/// router declined (``LiveRoute`` declines only for want of a valid token) with an empty 400;
/// the guard, which saw that the first request asked for an upgrade, sends 401 with a reason
/// instead.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let limits: ConnectionLimits
    private let counter: ConnectionCounter
    private var address: String?
    private var timeout: Scheduled<Void>?
    private var headBytes = 0
    /// The bytes of the head seen so far that matter: the last three (for CR LF CR LF) and
    /// whether the request line is over.
    private var last: (UInt8, UInt8, UInt8) = (0, 0, 0)
    private var inRequestLine = true
    private var headComplete = false
    private var rejected = false
    /// The first head's lines, lowercased, kept to tell an upgrade request (at most
    /// ``ConnectionLimits/maximumHeaderSize`` bytes).
    private var head: [UInt8] = []
    /// Whether the first response is still to come.
    private var firstResponse = true

    init(limits: ConnectionLimits, counter: ConnectionCounter) {
        self.limits = limits
        self.counter = counter
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    private func start(context: ChannelHandlerContext) {
        guard address == nil, !rejected else { return }
        let from = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard counter.open(from: from, limits: limits) else {
            reject(context: context, status: "503 Service Unavailable", reason: "The server has too many connections open; retry later", retryAfter: 5)
            return
        }
        address = from
        let channel = context.channel
        // Runs on the channel's event loop, as every other call of the handler.
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: TimeAmount(limits.headerTimeout)) {
            bound.value.headerTimedOut(channel)
        }
    }

    private func headerTimedOut(_ channel: any Channel) {
        guard !headComplete, !rejected else { return }
        rejected = true
        counter.noteSlow()
        channel.close(promise: nil)
    }

    private func finish() {
        timeout?.cancel()
        timeout = nil
        if let address {
            counter.close(from: address)
            self.address = nil
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !rejected else { return }
        guard !headComplete else {
            context.fireChannelRead(data)
            return
        }
        let buffer = unwrapInboundIn(data)
        if let problem = inspect(buffer) {
            counter.noteMalformed()
            reject(context: context, status: problem.status, reason: problem.reason, retryAfter: nil)
            return
        }
        if headComplete {
            timeout?.cancel()
            timeout = nil
        }
        context.fireChannelRead(data)
    }

    /// Scans the next bytes of the first head; a status and reason for a head to refuse.
    private func inspect(_ buffer: ByteBuffer) -> (status: String, reason: String)? {
        for byte in buffer.readableBytesView {
            guard !headComplete else { return nil }
            headBytes += 1
            guard headBytes <= limits.maximumHeaderSize else {
                return ("431 Request Header Fields Too Large", "The request head is larger than \(limits.maximumHeaderSize) bytes")
            }
            head.append(byte >= 65 && byte <= 90 ? byte + 32 : byte)
            let previous = last.2
            if previous == 13, byte != 10 {
                return ("400 Bad Request", "A CR not followed by LF in the request head")
            }
            switch byte {
            case 0:
                return ("400 Bad Request", "A NUL byte in the request head")
            case 10:
                if inRequestLine {
                    inRequestLine = false
                    // METHOD SP TARGET SP HTTP/1.x: a space in the target, or anything else,
                    // is refused here (Hummingbird would leave a first request unanswered).
                    let line = head.dropLast(previous == 13 ? 2 : 1).split(separator: 32, omittingEmptySubsequences: false)
                    guard line.count == 3, !line[0].isEmpty, !line[1].isEmpty, line[2].starts(with: "http/1.".utf8) else {
                        return ("400 Bad Request", "The request line is not METHOD TARGET HTTP/1.1 (spaces in the address must be percent-escaped)")
                    }
                }
                // An empty line ends the head: LF LF, or LF CR LF.
                if previous == 10 || (previous == 13 && last.1 == 10) {
                    headComplete = true
                    if let problem = Self.contentLengthProblem(in: head) { return problem }
                }
            case 13, 9:
                break
            case 1 ... 31, 127:
                return ("400 Bad Request", "A control byte (\(byte)) in the request head")
            case 128...:
                if inRequestLine { return ("400 Bad Request", "A non-ASCII byte in the request line: encode the address with percent-escapes") }
            default:
                break
            }
            last = (last.1, last.2, byte)
        }
        return nil
    }

    /// A refusal for a head (lowercased) whose `Content-Length` is not one decimal number
    /// that fits 64 bits (`+3`, `0x10`, `-1`, empty, 20 digits, two different values): behind
    /// the WebSocket upgrade handler, Hummingbird's parser error would leave such a first
    /// request neither answered nor closed, not even by the idle timeout (issue 67).
    private static func contentLengthProblem(in head: [UInt8]) -> (status: String, reason: String)? {
        let prefix = Array("content-length:".utf8)
        var values: Set<Int64> = []
        for line in head.split(separator: 10) where line.starts(with: prefix) {
            var value = line.dropFirst(prefix.count)
            while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
            while let last = value.last, last == 32 || last == 9 || last == 13 { value = value.dropLast() }
            guard !value.isEmpty, value.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int64(String(decoding: value, as: UTF8.self)) else {
                return ("400 Bad Request", "The Content-Length header is not a decimal number of bytes")
            }
            values.insert(number)
        }
        return values.count > 1 ? ("400 Bad Request", "The request has Content-Length headers that differ") : nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !rejected else {
            // The rest of an answer replaced by the guard's own.
            promise?.succeed()
            return
        }
        guard firstResponse else {
            context.write(data, promise: promise)
            return
        }
        firstResponse = false
        if case .byteBuffer(let buffer) = unwrapOutboundIn(data), buffer.readableBytesView.starts(with: "HTTP/1.1 400 ".utf8), isUpgradeRequest {
            let missing = !String(decoding: head, as: UTF8.self).contains("\nauthorization: bearer ")
            let reason = missing ? "The WebSocket needs Authorization: Bearer TOKEN" : "The token belongs to no account"
            promise?.succeed()
            reject(context: context, status: "401 Unauthorized", reason: reason, retryAfter: nil)
            return
        }
        head = []
        context.write(data, promise: promise)
    }

    /// Whether the first request asked for a WebSocket.
    private var isUpgradeRequest: Bool {
        String(decoding: head, as: UTF8.self).contains("\nupgrade: websocket")
    }

    /// Writes a raw HTTP/1.1 answer with a JSON reason and closes.
    private func reject(context: ChannelHandlerContext, status: String, reason: String, retryAfter: Int?) {
        rejected = true
        timeout?.cancel()
        timeout = nil
        let body = (try? JSONEncoder().encode(ErrorReason(status: .badRequest, reason: reason))) ?? Data()
        var head = "HTTP/1.1 \(status)\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: \(body.count)\r\n"
        if let retryAfter { head += "retry-after: \(retryAfter)\r\n" }
        head += "\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// A server child channel with a ``ConnectionGuard`` in front of `base`'s handlers.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let limits: ConnectionLimits
    let counter: ConnectionCounter

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, counter: counter))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension TimeAmount {

    /// A Swift duration as NIO's, to the nanosecond.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000)
    }
}
