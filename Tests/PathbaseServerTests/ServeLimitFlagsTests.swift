import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// `pathbase serve`'s limit flags reach the server they start: each test starts a real process
/// with limits far from the defaults and sends what only the flag refuses (issue 67, item 7).
/// The limits themselves are tested in-process in ``HostileClientTests`` and ``SyncServerTests``.
@Suite("pathbase serve: the limit flags")
struct ServeLimitFlagsTests {

    private static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    private static func record(model: ModelKey = 6, instance: InstanceKey, time: Int64 = now, _ value: String) throws -> SyncRecord {
        try SyncRecord(Record(path: Path(model: model, instance: instance, property: 1), timestamp: Timestamp(time: time, counter: UInt32(instance), replica: 4), value: value))
    }

    @Test("--maximum-value-size, --maximum-clock-drift and --models: each refuses the record the defaults would store, with its reason; the rest of the push is stored")
    func recordLimits() async throws {
        let (serve, token, _) = try await serveWithAccount(["--maximum-value-size", "1000", "--maximum-clock-drift", "5", "--models", "6"])
        defer { _ = serve.stop() }
        let small = try Self.record(instance: 1, "small")
        let large = try Self.record(instance: 2, String(repeating: "x", count: 2000))
        let ahead = try Self.record(instance: 3, time: Self.now + 60_000_000, "a minute ahead")
        let otherModel = try Self.record(model: 7, instance: 4, "model 7")
        let transport = HTTPSyncTransport(server: serve.url, token: token)
        let response = try await transport.push(PushRequest(replica: 4, records: [small, large, ahead, otherModel]))
        #expect(response.acknowledged == [small.key])
        let reasons = Dictionary(response.rejected.map { ($0.key, $0.reason) }) { first, _ in first }
        #expect(reasons[large.key]?.contains("at most 1000 bytes") == true, "\(reasons)")
        #expect(reasons[ahead.key]?.contains("(at most 5 s allowed)") == true, "\(reasons)")
        #expect(reasons[otherModel.key] != nil, "\(reasons)")
        #expect(try await transport.pull(PullRequest(after: 0, limit: 10)).records.map(\.key) == [small.key])
    }

    @Test("--maximum-json-depth 8: a push whose value nests 10 deep (13 with the body) gets 400 with the limit in its reason, and nothing is stored; 5 deep (8 with the body) is stored")
    func jsonDepth() async throws {
        let (serve, token, _) = try await serveWithAccount(["--maximum-json-depth", "8"])
        defer { _ = serve.stop() }
        let timestamp = String(decoding: try JSONEncoder().encode(Timestamp(time: Self.now, counter: 0, replica: 4)), as: UTF8.self)
        // The body's own nesting is 3 (object, records array, record); the value adds the rest.
        func push(valueDepth: Int, instance: Int) -> Data {
            let value = String(repeating: "[", count: valueDepth) + "1" + String(repeating: "]", count: valueDepth)
            return Data(#"{"replica":4,"records":[{"path":[6,\#(instance),1],"timestamp":\#(timestamp),"type":"codable:Nested","value":\#(value)}]}"#.utf8)
        }
        let deep = try await RawExchange.send(to: serve.url, "v1/push", token: token, body: push(valueDepth: 10, instance: 1))
        #expect(deep.status == 400)
        #expect(deep.reason?.contains("more than 8 deep") == true, "\(String(describing: deep.reason))")
        let transport = HTTPSyncTransport(server: serve.url, token: token)
        #expect(try await transport.pull(PullRequest(after: 0, limit: 10)).records.isEmpty)

        let shallow = try await RawExchange.send(to: serve.url, "v1/push", token: token, body: push(valueDepth: 5, instance: 2))
        #expect(shallow.status == 200, "\(String(describing: shallow.reason))")
        #expect(try await transport.pull(PullRequest(after: 0, limit: 10)).records.map(\.path) == [Path(model: 6, instance: 2, property: 1)])
    }

    @Test("--maximum-header-size 2048: a 3000-byte header gets 431 with the limit in its reason; health still answers")
    func headerSize() async throws {
        let (serve, _, _) = try await serveWithAccount(["--maximum-header-size", "2048"])
        defer { _ = serve.stop() }
        let connection = try RawConnection(port: serve.url.port ?? 0)
        try connection.send("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "a", count: 3000))\r\n\r\n")
        let answer = await connection.received(timeout: 10) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        #expect(RawConnection.status(of: answer) == 431, "\(String(decoding: answer.prefix(200), as: UTF8.self))")
        #expect(String(decoding: answer, as: UTF8.self).contains("larger than 2048 bytes"))
        #expect(try await RawExchange.send("GET", to: serve.url, "v1/health", token: nil, body: nil).status == 200)
    }

    @Test("--maximum-requests-per-account 1: with one push of the account under way, its next request gets 429 with Retry-After")
    func requestsPerAccount() async throws {
        let (serve, token, _) = try await serveWithAccount(["--maximum-requests-per-account", "1"])
        defer { _ = serve.stop() }
        // A push whose body never finishes holds the account's one place.
        func hold() throws -> RawConnection {
            let held = try RawConnection(port: serve.url.port ?? 0)
            try held.send("POST /v1/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 1000\r\n\r\n{")
            return held
        }
        var held = try hold()
        let pull = try JSONEncoder().encode(PullRequest(after: 0, limit: 10))
        // Until the server has read the held head (a loaded machine may take a while). A held
        // push that reached the server while a pull had the place was answered 429 itself:
        // another one takes its turn.
        var refused = try await RawExchange.send(to: serve.url, "v1/pull", token: token, body: pull)
        let deadline = Date().addingTimeInterval(20)
        while refused.status == 200, Date() < deadline {
            if !(await held.received(timeout: 0.1)).isEmpty || held.closed { held = try hold() }
            refused = try await RawExchange.send(to: serve.url, "v1/pull", token: token, body: pull)
        }
        #expect(refused.status == 429, "\(String(describing: refused.reason))")
        #expect(refused.retryAfter != nil)
        withExtendedLifetime(held) {}
    }

    // MARK: - Connections (raw sockets only: URLSession keeps connections of its own open)

    /// A `GET /v1/health` on a new connection that asks to be closed after it: the answer's
    /// status, or `nil` when none came within `timeout` seconds.
    private static func health(port: Int, timeout: TimeInterval = 30) async throws -> Int? {
        let connection = try RawConnection(port: port)
        try? connection.send("GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return RawConnection.status(of: await connection.received(timeout: timeout) { $0.count > 12 })
    }

    /// A health request on a new connection, retried (at most `attempts` times, for at most
    /// `seconds`) until it is answered 200: the server may not have seen an earlier close yet.
    /// The last status seen.
    private static func servedOnceFree(port: Int, seconds: TimeInterval = 30, attempts: Int = 300) async throws -> Int? {
        var status: Int?
        let deadline = Date().addingTimeInterval(seconds)
        for _ in 0 ..< attempts {
            status = try await health(port: port)
            if status == 200 || Date() >= deadline { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return status
    }

    /// A connection kept open after one answered request: the server has counted it.
    /// Retried like ``servedOnceFree(port:seconds:attempts:)`` while it is refused.
    private static func held(port: Int, seconds: TimeInterval = 30, attempts: Int = 300) async throws -> RawConnection {
        var answer: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        for _ in 0 ..< attempts {
            let connection = try RawConnection(port: port)
            try? connection.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = await connection.received(timeout: 30) { $0.count > 12 }
            if RawConnection.status(of: answer) == 200, !connection.closed { return connection }
            if Date() >= deadline { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HTTPTestFailure("no connection was served to hold: \(String(decoding: answer.prefix(300), as: UTF8.self))")
    }

    @Test(
        "--maximum-connections 3 and --maximum-connections-per-address 3: a fourth connection gets 503 and a close; closing a held connection frees its slot, and so does each connection the server closes after its answer; the cap still holds afterwards",
        .timed, arguments: ["--maximum-connections", "--maximum-connections-per-address"])
    // Timed, so run alone in the hostile stage: in the parallel run of the whole suite on 2
    // cores (2026-12-04) a closed held connection's slot was not seen free within 30 s in
    // either case, while alone it is free within a probe or two.
    func connectionSlotFreedAfterClose(flag: String) async throws {
        // A long idle timeout: the held connections stay open however slow the machine is.
        let (serve, _, _) = try await serveWithAccount([flag, "3", "--idle-timeout", "600"])
        defer { _ = serve.stop() }
        let port = serve.url.port ?? 0
        var open: [RawConnection] = []
        for _ in 0 ..< 3 { open.append(try await Self.held(port: port)) }

        let refused = try RawConnection(port: port)
        let answer = await refused.received(timeout: 30)
        #expect(RawConnection.status(of: answer) == 503, "\(String(decoding: answer.prefix(300), as: UTF8.self))")
        #expect(String(decoding: answer, as: UTF8.self).contains("too many connections"))
        #expect(refused.closed)
        // The held connections are still served while the cap is reached.
        try open[1].send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(RawConnection.status(of: await open[1].received(timeout: 30) { $0.count > 12 }) == 200)

        // Closed by the client: its slot is free once the server has seen the close.
        open.removeFirst()
        try #require(try await Self.servedOnceFree(port: port) == 200, "closing a held connection freed no slot")
        // With two held and one slot, each connection closed by the server after its answer
        // (Connection: close) frees the slot for the next: a leak would refuse the second.
        for round in 1 ... 5 {
            try #require(try await Self.servedOnceFree(port: port) == 200, "round \(round): the slot of a connection the server closed was not freed")
        }
        // Frees were counted once: with the third slot held again (once the server has seen
        // the last round's close), the cap refuses the next.
        open.append(try await Self.held(port: port))
        let again = try RawConnection(port: port)
        #expect(RawConnection.status(of: await again.received(timeout: 30)) == 503)
        #expect(again.closed)
        withExtendedLifetime(open) {}
    }

    // MARK: - Heads trickled a byte at a time

    /// Health requests on new connections every 200 ms while `trickling` says so: their
    /// statuses (nil for none), at most 300.
    private static func healthWhile(_ trickling: Locked<Bool>, port: Int) -> Task<[Int?], any Error> {
        Task {
            var statuses: [Int?] = []
            while trickling.current, statuses.count < 300 {
                statuses.append(try await health(port: port))
                try await Task.sleep(for: .milliseconds(200))
            }
            return statuses
        }
    }

    @Test("--header-timeout 2: a head trickled a byte every 100 ms is closed after 2 s, not before and well before the default 20 s; other clients are served meanwhile")
    func trickledHeadTimesOut() async throws {
        let (serve, _, _) = try await serveWithAccount(["--header-timeout", "2", "--idle-timeout", "600"])
        defer { _ = serve.stop() }
        let port = serve.url.port ?? 0
        let trickling = Locked(true)
        let others = Self.healthWhile(trickling, port: port)
        // Never finished: only the header timeout ends it.
        let head = Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: \(String(repeating: "a", count: 1000))".utf8)
        let connection = try RawConnection(port: port)
        let opened = Date()
        var sent = 0
        var closed = false
        // At most 25 s: past the default 20 s, so a flag not applied shows as a late close.
        while sent < head.count, !closed, Date().timeIntervalSince(opened) < 25 {
            do {
                try connection.send([head[sent]])
                sent += 1
            } catch {
                closed = true
                break
            }
            _ = await connection.received(timeout: 0.1)
            closed = connection.closed
        }
        let elapsed = Date().timeIntervalSince(opened)
        trickling.withLock { $0 = false }
        let statuses = try await others.value
        print("trickledHeadTimesOut: closed \(closed) after \(String(format: "%.1f", elapsed)) s and \(sent) bytes; \(statuses.count) other requests")
        #expect(closed, "a head trickled for \(elapsed) s (\(sent) bytes) was not closed")
        // The server's timer starts after the connection was opened, and never fires early.
        #expect(elapsed >= 1.9, "closed after \(elapsed) s, before the header timeout of 2 s")
        #expect(elapsed < 16, "closed only after \(elapsed) s with --header-timeout 2 (the default is 20)")
        #expect(sent >= 2, "only \(sent) bytes were trickled before the close")
        #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == 200 }, "other clients during the trickle: \(statuses)")
    }

    @Test(
        "--maximum-header-size 600 (header timeout 600 s): a head trickled a byte at a time within the size is answered 200; a longer one is answered 431 when byte 601 arrives and not before; other clients are served meanwhile"
    )
    func trickledHeadTooLarge() async throws {
        let (serve, _, _) = try await serveWithAccount(["--maximum-header-size", "600", "--header-timeout", "600", "--idle-timeout", "600"])
        defer { _ = serve.stop() }
        let port = serve.url.port ?? 0
        let trickling = Locked(true)
        let others = Self.healthWhile(trickling, port: port)
        /// Sends bytes one by one, milliseconds apart (so that the server reads them in many
        /// pieces), reading nothing; false when a send failed (the server closed).
        func trickle(_ bytes: ArraySlice<UInt8>, on connection: RawConnection) async throws -> Bool {
            for byte in bytes {
                do { try connection.send([byte]) } catch { return false }
                try await Task.sleep(for: .milliseconds(2))
            }
            return true
        }

        let within = Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "a", count: 450))\r\nConnection: close\r\n\r\n".utf8)
        try #require(within.count <= 600)
        let small = try RawConnection(port: port)
        #expect(try await trickle(within[...], on: small), "a head within the size was closed while trickled")
        let answer = await small.received(timeout: 30) { $0.count > 12 }
        #expect(RawConnection.status(of: answer) == 200, "\(String(decoding: answer.prefix(300), as: UTF8.self))")

        let beyond = Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "a", count: 1000))\r\n\r\n".utf8)
        let large = try RawConnection(port: port)
        #expect(try await trickle(beyond.prefix(600), on: large), "a head of 600 bytes was closed")
        let early = await large.received(timeout: 0.5)
        #expect(early.isEmpty && !large.closed, "answered at 600 bytes: \(String(decoding: early.prefix(300), as: UTF8.self))")
        try? large.send([beyond[600]])
        let refused = await large.received(timeout: 30)
        #expect(RawConnection.status(of: refused) == 431, "\(String(decoding: refused.prefix(300), as: UTF8.self))")
        #expect(String(decoding: refused, as: UTF8.self).contains("larger than 600 bytes"))
        #expect(large.closed)

        trickling.withLock { $0 = false }
        let statuses = try await others.value
        #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == 200 }, "other clients during the trickle: \(statuses)")
    }
}
