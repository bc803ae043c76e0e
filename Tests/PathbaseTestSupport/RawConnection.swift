import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP connection to 127.0.0.1, for what no HTTP client sends: malformed heads,
/// headers a byte at a time, a connection that never finishes its request.
///
/// ```swift
/// let connection = try RawConnection(port: 8080)
/// try connection.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
/// let answer = connection.receive(timeout: 5)   // the bytes until the server closes or 5 s pass
/// ```
public final class RawConnection: @unchecked Sendable {
    // @unchecked: one task uses a connection at a time.

    private let socket: Int32

    /// Connects, or throws ``RawConnectionError``.
    public init(port: Int) throws {
        #if canImport(Glibc)
            let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RawConnectionError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw RawConnectionError("connect: errno \(errno)")
        }
        socket = descriptor
    }

    deinit { close(socket) }

    /// Sends bytes; throws when the server closed the connection.
    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard result > 0 else { throw RawConnectionError("send: errno \(errno)") }
            sent += result
        }
    }

    /// Sends text.
    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// The bytes received until the server closes the connection, `enough` says they are,
    /// or `timeout` seconds pass;
    /// ``closed`` tells which.
    public func receive(timeout: TimeInterval, until enough: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return received }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000) + 1)
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                closed = true
                return received
            }
            received += buffer[0 ..< count]
            if enough(received) { return received }
        }
    }

    /// ``receive(timeout:until:)`` on a dispatch thread: blocking a thread of Swift's
    /// cooperative pool (two on a two-core machine) could starve a server in this process.
    public func received(timeout: TimeInterval, until enough: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.receive(timeout: timeout, until: enough))
            }
        }
    }

    /// Whether ``receive(timeout:)`` saw the server close the connection.
    public private(set) var closed = false

    /// The status code of an HTTP answer's first line, or `nil`.
    public static func status(of answer: [UInt8]) -> Int? {
        let text = String(decoding: answer.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }
}

/// A failed ``RawConnection`` call.
public struct RawConnectionError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
