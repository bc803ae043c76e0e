import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Host` values a Studio answers, against DNS rebinding: a page of another site whose
/// name the attacker points at 127.0.0.1 reaches a loopback Studio with its own name in
/// `Host`, so a loopback Studio answers only loopback names and addresses (`localhost`, an
/// address in 127.0.0.0/8, `::1`), the `--host` it was given and the `--allowed-host`
/// names, each with the port it listens on; anything else is a 421 with the reason. Off
/// loopback (where the token is also needed) any IP address and this machine's name are let
/// through too. Development servers (Vite, webpack-dev-server, Jupyter) check the same way.
struct StudioHosts: Sendable {

    /// The address Studio listens on (`--host`).
    let bound: String

    /// Further names to answer (`--allowed-host`), lowercased.
    let allowed: Set<String>

    /// This machine's name and its first label, lowercased; off loopback only.
    let machine: Set<String>

    init(bound: String, allowed: [String]) {
        self.bound = bound.lowercased()
        self.allowed = Set(allowed.map { $0.lowercased() })
        if Self.isLoopback(bound) {
            machine = []
        } else {
            let name = ProcessInfo.processInfo.hostName.lowercased()
            machine = name.isEmpty ? [] : [name, String(name.prefix { $0 != "." })]
        }
    }

    /// Whether a request whose `Host` (its authority) is `authority` is answered by a Studio
    /// listening on `port`; `nil` when it is, else the reason.
    func refusal(of authority: String?, port: Int) -> String? {
        guard let authority, !authority.isEmpty else { return "the request names no Host" }
        guard let (name, given) = Self.split(authority) else { return "its Host '\(Self.shown(authority))' is not a name or address with a port" }
        guard (given ?? 80) == port else { return "its Host '\(Self.shown(authority))' names another port than \(port)" }
        let lowered = name.lowercased()
        if Self.isLoopback(lowered) || lowered == bound || allowed.contains(lowered) { return nil }
        if !Self.isLoopback(bound), Self.isAddress(lowered) || machine.contains(lowered) { return nil }
        return "its Host '\(Self.shown(authority))' is not this machine's (a page of another site whose name points here, DNS rebinding, or a proxy: --allowed-host NAME lets a name through)"
    }

    /// A name is loopback only when it is `localhost` or an address in 127.0.0.0/8 or `::1`:
    /// a name such as `127.evil.example` is not.
    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        if let octets = ipv4(host) { return octets[0] == 127 }
        if let bytes = ipv6(host) { return bytes == [UInt8](repeating: 0, count: 15) + [1] }
        return false
    }

    /// Whether `host` is an IPv4 or IPv6 address (not a name).
    static func isAddress(_ host: String) -> Bool { ipv4(host) != nil || ipv6(host) != nil }

    /// The four numbers of a dotted IPv4 address (each 0–255, at most three digits).
    static func ipv4(_ host: String) -> [Int]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let numbers = parts.compactMap { part -> Int? in
            guard (1 ... 3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part), value <= 255 else { return nil }
            return value
        }
        return numbers.count == 4 ? numbers : nil
    }

    /// The 16 bytes of an IPv6 address, through `inet_pton`.
    static func ipv6(_ host: String) -> [UInt8]? {
        guard host.contains(":"), host.utf8.count < 64, host.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, host, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// An authority's name (without brackets) and port, `nil` when it is neither `NAME`,
    /// `NAME:PORT`, `[V6]` nor `[V6]:PORT`.
    static func split(_ authority: String) -> (name: String, port: Int?)? {
        var name: Substring
        var rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            name = authority[authority.index(after: authority.startIndex) ..< close]
            rest = authority[authority.index(after: close)...]
            guard ipv6(String(name)) != nil else { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            name = authority[..<colon]
            rest = authority[colon...]
        } else {
            name = authority[...]
            rest = ""
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else { return nil }
        guard !rest.isEmpty else { return (String(name), nil) }
        guard rest.first == ":" else { return nil }
        let digits = rest.dropFirst()
        guard (1 ... 5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(digits) else { return nil }
        return (String(name), port)
    }

    /// At most 100 characters of a header, for a message.
    private static func shown(_ text: String) -> String {
        text.unicodeScalars.count > 100 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(100))) + "…" : text
    }
}

/// The port a Studio listens on, known once it listens (port 0 picks one).
final class ListeningPort: @unchecked Sendable {
    // @unchecked: `port` is touched only while holding `lock`.

    private let lock = NSLock()
    private var port: Int?

    /// The port; `nil` before the server listens.
    var value: Int? {
        lock.lock()
        defer { lock.unlock() }
        return port
    }

    func set(_ port: Int) {
        lock.lock()
        self.port = port
        lock.unlock()
    }
}
