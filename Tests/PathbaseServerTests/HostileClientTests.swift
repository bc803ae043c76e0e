import Foundation
import Logging
import Pathbase
import PathbaseLiveSync
import PathbaseSQLite
import PathbaseServer
import PathbaseTestSupport
import Testing

/// The findings of issue 45, each against the code that fixes it: what a hostile client on
/// the network could do to `pathbase serve`, and what it gets now.
///
/// The tests marked `.timed` bound how fast the server answers or closes (seconds): on two
/// cores beside the whole parallel suite, their socket reads wait minutes for a thread, so
/// they run in `scripts/reliability`'s hostile stage, alone (`PATHBASE_HOSTILE=1`).
@Suite("pathbase serve against hostile clients: numbers, authentication first, decoding and connection limits")
struct HostileClientTests {

    /// A `pathbase serve` process on a new SQLite file with one account, and its token.
    private func health(_ url: URL) async throws -> Int {
        try await RawExchange.send("GET", to: url, "v1/health", token: nil, body: nil).status
    }

    /// A push body whose one record has `value` (raw JSON) at `path`.
    private func push(value: String, path: String = "[6,1,1]") -> Data {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let timestamp = String(decoding: (try? JSONEncoder().encode(Timestamp(time: now, counter: 0, replica: 4))) ?? Data(), as: UTF8.self)
        return Data(#"{"replica":4,"records":[{"path":\#(path),"timestamp":\#(timestamp),"type":"codable:Nested","value":\#(value)}]}"#.utf8)
    }

    // MARK: - Numbers from clients

    @Test(
        "Range: bytes=0-9223372036854775807 (the exact curl of the issue, with any token and with a real one) on an asset the server holds is answered with its bytes; past its end 416, malformed 400; GET /v1/health still answers"
    )
    func rangeOverflow() async throws {
        let (serve, token, _) = try await serveWithAccount()
        defer { _ = serve.stop() }
        let port = serve.url.port ?? 0
        // A real asset of 1000 bytes on the server, uploaded by a replica.
        let database = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: serve.url, token: token))
        let asset = try await database.storeAsset(Data((0 ..< 1000).map { UInt8(truncatingIfNeeded: $0) }))
        ServerRecording.create(in: database, id: 1, title: "ranged", audio: asset)
        let uploaded = try await replica.sync()
        try #require(uploaded.uploadedAssets == 1, "\(uploaded)")
        let address = "http://127.0.0.1:\(port)/v1/assets/" + asset.hash

        let anyToken = try await Curl.status(["-H", "Authorization: Bearer x", "-H", "Range: bytes=0-9223372036854775807", address])
        #expect(anyToken.output == "401", "\(anyToken)")
        // The whole asset, as one chunk (it is smaller than the chunk limit), with its true range.
        let realToken = try await Curl.run(["-D", "-", "-o", "/dev/null", "-H", "Authorization: Bearer \(token)", "-H", "Range: bytes=0-9223372036854775807", address])
        let head = realToken.output.lowercased()
        #expect(head.hasPrefix("http/1.1 206"), "\(realToken)")
        #expect(head.contains("content-range: bytes 0-999/1000"), "\(realToken)")
        #expect(head.contains("content-length: 1000"), "\(realToken)")
        let missing = try await Curl.status([
            "-H", "Authorization: Bearer \(token)", "-H", "Range: bytes=0-9223372036854775807", "http://127.0.0.1:\(port)/v1/assets/" + String(repeating: "a", count: 64)
        ])
        #expect(missing.output == "404", "an asset the server lacks: \(missing)")
        for (range, status) in [
            ("bytes=9223372036854775807-9223372036854775807", "416"), ("bytes=9223372036854775806-", "416"), ("bytes=1000-", "416"), ("bytes=0-99999999999999999999", "400"),
            ("bytes=-5", "400"), ("bytes=5-1", "400")
        ] {
            let answer = try await Curl.status(["-H", "Authorization: Bearer \(token)", "-H", "Range: \(range)", address])
            #expect(answer.output == status, "\(range): \(answer)")
        }
        #expect(try await health(serve.url) == 200)
        #expect(serve.isRunning)
    }

    @Test("The range parser takes the largest bounds without overflow")
    func rangeParser() throws {
        let maximum = SyncServer.maximumAssetChunkSize
        #expect(try SyncRoutes.range("bytes=0-9223372036854775807") == (0, maximum))
        #expect(try SyncRoutes.range("bytes=9223372036854775807-9223372036854775807") == (Int64.max, 1))
        #expect(try SyncRoutes.range("bytes=10-19") == (10, 10))
        let error = #expect(throws: SyncServerError.self) { try SyncRoutes.range("bytes=0-99999999999999999999") }
        #expect(errorCase(of: error) == "invalidAssetRequest", "\(String(describing: error))")
    }

    @Test("Fuzzed Range, Content-Length, Authorization and Content-Type headers on every route: each answered or closed, the server keeps answering", .timed)
    func headerFuzz() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        var random = SplitMix64(seed: 45)
        let numbers = ["0", "-1", "1", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999", "1e3", " 5", "0x10", "", "+3"]
        let routes = [
            "POST /v1/push", "POST /v1/pull", "POST /v1/commands/send", "POST /v1/commands/inbox", "POST /v1/commands/answer", "POST /v1/commands/result",
            "POST /v1/assets/missing", "PUT /v1/assets/\(String(repeating: "a", count: 64))?size=N&offset=N", "GET /v1/assets/\(String(repeating: "a", count: 64))", "GET /v1/live", "GET /v1/metrics"
        ]
        // A request whose Content-Length promises more than it sends waits for its body until
        // the idle timeout closes it: short here, so that every request is seen answered or
        // closed.
        let idleTimeout = 2.0
        try await withHTTPServer(server, connectionLimits: ConnectionLimits(idleTimeout: .seconds(idleTimeout))) { url in
            let port = url.port ?? 0
            var requests: [(text: String, honest: Bool)] = []
            for _ in 0 ..< 200 {
                func number() -> String { numbers[Int(random.next() % UInt64(numbers.count))] }
                let route = routes[Int(random.next() % UInt64(routes.count))].replacingOccurrences(of: "N", with: number())
                var head = "\(route) HTTP/1.1\r\nHost: x\r\n"
                switch random.next() % 4 {
                case 0: head += "Authorization: Bearer \(token)\r\n"
                case 1: head += "Authorization: Bearer \(String(repeating: "x", count: Int(random.next() % 3000)))\r\n"
                case 2: head += "Authorization: Basic \(number())\r\n"
                default: break
                }
                if random.next() % 2 == 0 { head += "Range: bytes=\(number())-\(number())\r\n" }
                if random.next() % 3 == 0 { head += "Content-Type: \(["application/json", "text/plain; charset=\u{1}", "", "multipart/form-data; boundary="][Int(random.next() % 4)])\r\n" }
                let body = ["{}", "[", #"{"after":0,"limit":9223372036854775807}"#, #"{"replicas":[4294967295],"limit":-1}"#, #"{"id":9223372036854775807,"replica":0}"#][Int(random.next() % 5)]
                let length = random.next() % 4 == 0 ? number() : String(body.utf8.count)
                head += "Content-Length: \(length)\r\n\r\n"
                requests.append((head + body, length == String(body.utf8.count)))
            }
            let sent = requests
            // On dispatch threads, 8 at a time: blocking sockets must not take the server's
            // threads. Every request, honest or not, must get an answer or a close: at once,
            // or (a body promised and never sent) when the idle timeout passes.
            let answered: [Bool] = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    let outcomes = Locked([Bool](repeating: false, count: sent.count))
                    DispatchQueue.concurrentPerform(iterations: 8) { lane in
                        for index in stride(from: lane, to: sent.count, by: 8) {
                            guard let connection = try? RawConnection(port: port) else { continue }
                            try? connection.send(sent[index].text)
                            let answer = connection.receive(timeout: idleTimeout + 5) { $0.count > 12 }
                            let done = RawConnection.status(of: answer) != nil || connection.closed
                            outcomes.withLock { $0[index] = done }
                        }
                    }
                    continuation.resume(returning: outcomes.current)
                }
            }
            let unanswered = zip(sent, answered).filter { !$1 }.map { String($0.0.text.prefix(300)) }
            let dishonest = sent.filter { !$0.honest }.count
            print("headerFuzz: \(sent.count) requests (\(dishonest) with a dishonest Content-Length), \(sent.count - unanswered.count) answered or closed")
            #expect(dishonest > 0 && dishonest < sent.count, "\(dishonest) of \(sent.count) dishonest")
            #expect(unanswered.isEmpty, "fuzzed requests that got neither an answer nor a close: \(unanswered)")
            let health = try await RawExchange.send("GET", to: url, "v1/health", token: nil, body: nil)
            #expect(health.status == 200)
        }
    }

    // MARK: - Authentication first

    @Test("A request with a wrong token gets 401 before its body is read: a declared 100 MB body that never comes is answered at once", .timed)
    func authenticationBeforeBody() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        _ = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            for (method, endpoint) in [
                ("POST", "/v1/push"), ("POST", "/v1/pull"), ("POST", "/v1/commands/inbox"), ("POST", "/v1/assets/missing"),
                ("PUT", "/v1/assets/\(String(repeating: "a", count: 64))?size=5&offset=0")
            ] {
                let connection = try RawConnection(port: url.port ?? 0)
                try connection.send("\(method) \(endpoint) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nContent-Length: 100000000\r\n\r\n[[[[")
                let started = Date()
                let answer = await connection.received(timeout: 5) { String(decoding: $0, as: UTF8.self).hasSuffix("}") }
                #expect(RawConnection.status(of: answer) == 401, "\(endpoint): \(String(decoding: answer, as: UTF8.self))")
                #expect(String(decoding: answer, as: UTF8.self).contains("The token belongs to no account"))
                #expect(Date().timeIntervalSince(started) < 4, "\(endpoint) waited for the body")
            }
        }
    }

    @Test("Asset and inbox endpoints answer 401, not a body-validation 400, to a wrong token")
    func unauthorizedBeforeValidation() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        try await withHTTPServer(server) { url in
            let inbox = try await RawExchange.send(to: url, "v1/commands/inbox", token: "wrong", body: Data(#"{"replicas":[],"limit":0}"#.utf8))
            #expect(inbox.status == 401)
            let upload = try await RawExchange.send("PUT", to: url, "v1/assets/zz?size=x", token: "wrong", body: Data("a".utf8))
            #expect(upload.status == 401)
            let download = try await RawExchange.send("GET", to: url, "v1/assets/zz", token: "wrong", body: nil, range: "bytes=x")
            #expect(download.status == 401)
            let missing = try await RawExchange.send(to: url, "v1/assets/missing", token: "wrong", body: Data("[".utf8))
            #expect(missing.status == 401)
        }
    }

    @Test("A WebSocket upgrade with a wrong or missing token gets 401 with a reason; a valid one is upgraded", .timed)
    func webSocketUnauthorized() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            for (authorization, reason) in [("Authorization: Bearer wrong\r\n", "The token belongs to no account"), ("", "Authorization: Bearer")] {
                let connection = try RawConnection(port: url.port ?? 0)
                try connection.send(
                    "GET /v1/live HTTP/1.1\r\nHost: x\r\n\(authorization)Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                let answer = await connection.received(timeout: 5)
                #expect(RawConnection.status(of: answer) == 401, "\(String(decoding: answer, as: UTF8.self))")
                #expect(String(decoding: answer, as: UTF8.self).contains(reason))
            }
            let connection = try RawConnection(port: url.port ?? 0)
            try connection.send(
                "GET /v1/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            )
            let answer = await connection.received(timeout: 2) { $0.count > 12 }
            #expect(RawConnection.status(of: answer) == 101)
        }
    }

    // MARK: - Decoding limits

    @Test("Arrays nested 500 deep and an 8 MB [Int] are refused fast, with and without a token; nothing is stored", .timed)
    func decodingLimits() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let deep = push(value: String(repeating: "[", count: 500) + String(repeating: "]", count: 500))
        let deepBody = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        var ints = "["
        ints.reserveCapacity(8 << 20)
        while ints.utf8.count < (8 << 20) - 16 { ints += "1234567," }
        ints += "1]"
        try await withHTTPServer(server) { url in
            for body in [deep, Data(deepBody.utf8), Data(ints.utf8)] {
                let started = Date()
                let anonymous = try await RawExchange.send(to: url, "v1/push", token: "wrong", body: body)
                #expect(anonymous.status == 401)
                let refused = try await RawExchange.send(to: url, "v1/push", token: token, body: body)
                #expect(refused.status == 400 || refused.status == 413, "\(refused.status) \(refused.reason ?? "")")
                #expect(refused.reason?.contains("deep") == true || refused.reason?.contains("JSON values") == true, "\(refused.reason ?? "")")
                #expect(Date().timeIntervalSince(started) < 5, "took \(Date().timeIntervalSince(started)) s")
            }
            // A value just within the depth limit is stored; its encoding is the canonical one.
            let nested = push(value: String(repeating: "[", count: 50) + String(repeating: "]", count: 50))
            let stored = try await RawExchange.send(to: url, "v1/push", token: token, body: nested)
            #expect(stored.status == 200)
        }
        let pulled = try await server.pull(PullRequest(after: 0, limit: 10), token: token)
        #expect(pulled.records.count == 1)
    }

    @Test("A record's value larger than the per-value limit is rejected with a reason; the rest of the push is stored")
    func valueSizeLimit() async throws {
        let server = SyncServer(store: InMemorySyncServerStore(), maximumValueSize: 1000)
        let token = try await server.addAccount(named: "alice")
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let small = try SyncRecord(Record(path: Path(model: 6, instance: 1, property: 1), timestamp: Timestamp(time: now, counter: 0, replica: 4), value: "small"))
        let large = try SyncRecord(Record(path: Path(model: 6, instance: 2, property: 1), timestamp: Timestamp(time: now, counter: 1, replica: 4), value: String(repeating: "x", count: 2000)))
        let response = try await server.push(PushRequest(replica: 4, records: [small, large]), token: token)
        #expect(response.acknowledged == [small.key])
        #expect(response.rejected.map(\.key) == [large.key])
        #expect(response.rejected.first?.reason.contains("at most 1000 bytes") == true)
    }

    // MARK: - Fairness

    @Test("An account with its maximum of requests under way gets 429 with Retry-After; another account is served")
    func perAccountConcurrency() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let alice = try await server.addAccount(named: "alice")
        let bob = try await server.addAccount(named: "bob")
        let pull = try JSONEncoder().encode(PullRequest(after: 0, limit: 10))
        try await withHTTPServer(server, requestLimits: RequestLimits(maximumConcurrentRequestsPerAccount: 2)) { url in
            // Two pushes whose bodies never finish hold alice's two places.
            let held = try (0 ..< 2).map { _ in
                let connection = try RawConnection(port: url.port ?? 0)
                try connection.send("POST /v1/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\nContent-Length: 1000\r\n\r\n{")
                return connection
            }
            // Until the server has read both heads (a loaded machine may take a while).
            var refused = try await RawExchange.send(to: url, "v1/pull", token: alice, body: pull)
            let deadline = Date().addingTimeInterval(10)
            while refused.status == 200, Date() < deadline {
                try await Task.sleep(for: .milliseconds(100))
                refused = try await RawExchange.send(to: url, "v1/pull", token: alice, body: pull)
            }
            #expect(refused.status == 429)
            #expect(refused.retryAfter == "1")
            #expect(refused.reason?.contains("requests under way") == true)
            #expect(try await RawExchange.send(to: url, "v1/pull", token: bob, body: pull).status == 200)
            withExtendedLifetime(held) {}
        }
    }

    // MARK: - Connection limits (a real process)

    @Test("Slow headers are closed after the header timeout; NUL, bare CR, a 100 kB header and a non-ASCII target get 400/431 with a reason and a close; health still answers", .timed)
    func connectionLimits() async throws {
        let (serve, _, _) = try await serveWithAccount(["--header-timeout", "1", "--idle-timeout", "2"])
        defer { _ = serve.stop() }
        let port = serve.url.port ?? 0
        // Headers a byte at a time, never finished.
        let slow = try RawConnection(port: port)
        let started = Date()
        try slow.send("GET /v1/health HTTP/1.1\r\nHo")
        _ = await slow.received(timeout: 5)
        #expect(slow.closed, "a slow header was not closed")
        #expect(Date().timeIntervalSince(started) < 4)
        let cases: [(bytes: [UInt8], status: Int)] = [
            (Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n".utf8), 400),
            (Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n".utf8), 400),
            (Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: \(String(repeating: "a", count: 100_000))\r\n\r\n".utf8), 431),
            (Array("GET /v1/h\u{e9}alth HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400)
        ]
        for (bytes, status) in cases {
            let connection = try RawConnection(port: port)
            try? connection.send(bytes)
            let answer = await connection.received(timeout: 5)
            #expect(RawConnection.status(of: answer) == status, "\(String(decoding: answer.prefix(200), as: UTF8.self))")
            #expect(String(decoding: answer, as: UTF8.self).contains("\"reason\""))
            #expect(connection.closed)
        }
        // An idle keep-alive connection is closed after the idle timeout.
        let idle = try RawConnection(port: port)
        try idle.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = await idle.received(timeout: 6)
        #expect(idle.closed, "an idle connection was not closed")
        #expect(try await health(serve.url) == 200)
    }

    @Test("More connections than --maximum-connections-per-address are answered 503 and closed", .timed)
    func connectionCount() async throws {
        let (serve, _, _) = try await serveWithAccount(["--maximum-connections-per-address", "3"])
        defer { _ = serve.stop() }
        let port = serve.url.port ?? 0
        // Each of the three is answered on its kept-alive connection before the fourth opens:
        // the server has counted them all (no sleep guesses when).
        var open = try (0 ..< 3).map { _ in try RawConnection(port: port) }
        for connection in open {
            try connection.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = await connection.received(timeout: 30) { $0.count > 12 }
            #expect(RawConnection.status(of: answer) == 200, "\(String(decoding: answer, as: UTF8.self))")
            #expect(!connection.closed)
        }
        let extra = try RawConnection(port: port)
        let answer = await extra.received(timeout: 5)
        #expect(RawConnection.status(of: answer) == 503)
        #expect(extra.closed)
        // A slot is freed when its connection closes: once one of the three is gone, a new
        // connection is served again (retried while the server has not seen the close yet).
        open.removeFirst()
        var freed: Int?
        let deadline = Date().addingTimeInterval(10)
        while freed != 200, Date() < deadline {
            let next = try RawConnection(port: port)
            try? next.send("GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            freed = RawConnection.status(of: await next.received(timeout: 5) { $0.count > 12 })
            if freed != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(freed == 200, "no slot was freed by closing a connection: \(String(describing: freed))")
        withExtendedLifetime(open) {}
    }

    @Test("A head trickled a byte every 200 ms is closed after the header timeout, however often bytes arrive", .timed)
    func trickledHeaders() async throws {
        let (serve, _, _) = try await serveWithAccount(["--header-timeout", "1"])
        defer { _ = serve.stop() }
        let connection = try RawConnection(port: serve.url.port ?? 0)
        let head = Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: \(String(repeating: "a", count: 200))".utf8)
        let started = Date()
        var sent = 0
        while sent < head.count, Date().timeIntervalSince(started) < 8 {
            do { try connection.send([head[sent]]) } catch { break }
            sent += 1
            _ = await connection.received(timeout: 0.2)
            if connection.closed { break }
        }
        let elapsed = Date().timeIntervalSince(started)
        print("trickledHeaders: closed \(connection.closed) after \(String(format: "%.1f", elapsed)) s and \(sent) bytes")
        #expect(connection.closed, "a head trickled for \(elapsed) s (\(sent) bytes) was not closed")
        #expect(elapsed < 4, "closed only after \(elapsed) s with a header timeout of 1 s")
    }

    // MARK: - The low items

    @Test("A record whose path has four elements is rejected with a reason, not stored under three")
    func fourElementPath() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let exchange = try await RawExchange.send(to: url, "v1/push", token: token, body: push(value: "1", path: "[6,1,2,3]"))
            #expect(exchange.status == 200)
            let response = try JSONDecoder().decode(PushResponse.self, from: exchange.body)
            #expect(response.acknowledged.isEmpty)
            #expect(response.rejected.first?.reason.contains("4 elements") == true, "\(response)")
        }
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.isEmpty)
    }

    @Test("The log holds no Authorization header and no query string")
    func logRedaction() async throws {
        let lines = LogLines()
        var logger = Logger(label: "pathbase.serve.test") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .trace
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server, logger: logger) { url in
            _ = try await RawExchange.send("GET", to: url, "v1/health?token=SECRETQUERY", token: token, body: nil)
            _ = try await RawExchange.send(to: url, "v1/pull?access_token=SECRETQUERY", token: token, body: try JSONEncoder().encode(PullRequest(after: 0, limit: 1)))
        }
        let logged = lines.all.joined(separator: "\n")
        #expect(logged.contains("/v1/health"), "\(logged)")
        #expect(!logged.contains("SECRETQUERY"))
        #expect(!logged.contains(token))
    }

    @Test("The metrics count every route the router has, /v1/commands/* and WebSocket upgrades included")
    func metricsLabels() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server, metricsToken: "metrics") { url in
            _ = try await RawExchange.send(to: url, "v1/commands/inbox", token: token, body: Data(#"{"replicas":[2],"limit":5}"#.utf8))
            _ = try await RawExchange.send("GET", to: url, "v1/assets/\(String(repeating: "a", count: 64))", token: token, body: nil)
            _ = try await RawExchange.send("GET", to: url, "no/such/path", token: token, body: nil)
            // A WebSocket upgrade, held until the server's first frame.
            let connected = Locked(false)
            let live = Task { try await WebSocketLiveUpdates(server: url, token: token).listen(connected: { connected.withLock { $0 = true } }, changed: { _ in }) }
            let deadline = Date().addingTimeInterval(60)
            while !connected.current, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            live.cancel()
            let ended = await live.result
            #expect(connected.current, "the live line did not connect: \(ended)")
            let report = try JSONDecoder().decode(MetricsReport.self, from: try await RawExchange.send("GET", to: url, "v1/metrics", token: "metrics", body: nil).body)
            #expect(report.requests["POST /v1/commands/inbox"] != nil, "\(report.requests)")
            #expect(report.requests["GET /v1/assets/:hash"] != nil, "\(report.requests)")
            #expect(report.requests["GET /v1/live"] != nil, "the upgrade was not counted: \(report.requests)")
            #expect(report.requests["other"] != nil)
        }
    }
}

/// Log lines kept for a test to read.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// A log handler that keeps each message with its metadata.
struct CapturingLogHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
    }
}

extension Trait where Self == ConditionTrait {

    /// Runs the test only in the hostile stage of `scripts/reliability` (`PATHBASE_HOSTILE=1`),
    /// where nothing else loads the machine.
    static var timed: Self {
        .enabled(if: ProcessInfo.processInfo.environment["PATHBASE_HOSTILE"] == "1", "bounds time: run alone by scripts/reliability's hostile stage")
    }
}
