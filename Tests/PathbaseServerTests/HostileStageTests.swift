import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Pathbase
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// The `hostile` stage of `scripts/reliability` (PATHBASE_HOSTILE=1): a real `pathbase serve`
/// on SQLite on loopback, attacked one way after another (each bounded in count and time)
/// while a legitimate replica pushes records. Per attack it prints the server's crashes,
/// `GET /v1/health` p99 during the attack, the server's peak RSS, slow connections closed,
/// and the legitimate records that arrived; it fails when the server dies, a record is
/// lost, or nothing was measured.
@Suite("Hostile clients against a pathbase serve process (scripts/reliability hostile)", .enabled(if: ProcessInfo.processInfo.environment["PATHBASE_HOSTILE"] == "1"))
struct HostileStageTests {

    /// Latencies of `GET /v1/health`, sampled every 20 ms while `attack` runs.
    private func measuringHealth(_ url: URL, _ attack: () async throws -> Void) async throws -> [Double] {
        let samples = Locked<[Double]>([])
        let stop = Locked(false)
        let prober = Task.detached {
            var request = URLRequest(url: url.appendingPathComponent("v1/health"))
            request.timeoutInterval = 30
            while !stop.current {
                let started = Date()
                if let (_, response) = try? await URLSession.shared.data(for: request), (response as? HTTPURLResponse)?.statusCode == 200 {
                    samples.withLock { $0.append(Date().timeIntervalSince(started) * 1000) }
                } else {
                    samples.withLock { $0.append(30_000) }
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        try await attack()
        stop.withLock { $0 = true }
        await prober.value
        return samples.current
    }

    /// Runs `work` on a dispatch thread: the attacks block on sockets.
    private func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// Sends `request` on `count` connections, `parallel` at once; returns the statuses.
    private func burst(port: Int, count: Int, parallel: Int = 8, _ request: @escaping @Sendable (Int) -> [UInt8]) async -> [Int] {
        await blocking {
            let statuses = Locked<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: parallel) { lane in
                for index in stride(from: lane, to: count, by: parallel) {
                    guard let connection = try? RawConnection(port: port) else { continue }
                    try? connection.send(request(index))
                    let answer = connection.receive(timeout: 10) { Self.complete($0) }
                    statuses.withLock { $0.append(RawConnection.status(of: answer) ?? 0) }
                }
            }
            return statuses.current
        }
    }

    /// Whether an answer's head and `content-length` body are in.
    private static func complete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return true }
        return text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length
    }

    private static func post(_ path: String, token: String?, body: [UInt8]) -> [UInt8] {
        var head = "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    @Test("each attack: 0 crashes, health p99 reported, slow connections closed, every legitimate record arrives")
    func hostileStage() async throws {
        let file = ServerTestFiles.newPath()
        let added = try ServeProcess.run(["accounts", "add", "alice", "--database", file])
        #expect(added.status == 0)
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let headerTimeout = 2
        let serve = try ServeProcess(store: ["--database", file, "--header-timeout", "\(headerTimeout)", "--maximum-connections-per-address", "1500"])
        defer { _ = serve.stop() }
        let port = serve.url.port ?? 0
        ProcessMemory.resetPeak(of: serve.pid)

        let writer = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token), batchSize: 50)
        let reader = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let readerReplica = try Replica(database: reader, transport: HTTPSyncTransport(server: serve.url, token: token))
        var written = 0
        let hash = String(repeating: "a", count: 64)
        let deep = Array("{\"replica\":1,\"records\":\(String(repeating: "[", count: 500))\(String(repeating: "]", count: 500))}".utf8)
        var ints = "["
        while ints.utf8.count < (8 << 20) - 16 { ints += "1234567," }
        let huge = Array((ints + "1]").utf8)

        let attacks: [(name: String, run: @Sendable () async -> String)] = [
            (
                "range-overflow",
                {
                    let statuses = await self.burst(port: port, count: 400) { index in
                        Array(
                            "GET /v1/assets/\(index % 2 == 0 ? "zz" : hash) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(index % 4 < 2 ? "x" : token)\r\nRange: bytes=0-9223372036854775807\r\n\r\n"
                                .utf8)
                    }
                    return "400 requests: \(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key })"
                }
            ),
            (
                "nested-bodies",
                {
                    let statuses = await self.burst(port: port, count: 90) { index in
                        Self.post("/v1/push", token: [nil, "wrong", token][index % 3], body: deep)
                    }
                    return "90 pushes 500 deep: \(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key })"
                }
            ),
            (
                "oversized-bodies",
                {
                    let statuses = await self.burst(port: port, count: 12, parallel: 4) { index in
                        Self.post("/v1/push", token: index % 2 == 0 ? "wrong" : token, body: huge)
                    }
                    return "12 pushes of an 8 MB [Int]: \(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key })"
                }
            ),
            (
                "slow-headers",
                {
                    let closed = await self.blocking {
                        let connections = (0 ..< 300).compactMap { _ in try? RawConnection(port: port) }
                        for connection in connections { try? connection.send("GET /v1/health HTTP/1.1\r\nHo") }
                        Thread.sleep(forTimeInterval: Double(headerTimeout) + 2)
                        return connections.filter {
                            _ = $0.receive(timeout: 0.05)
                            return $0.closed
                        }.count
                    }
                    return "slow connections closed within \(headerTimeout + 2) s: \(closed)/300"
                }
            ),
            (
                "malformed-headers",
                {
                    let statuses = await self.burst(port: port, count: 200) { index in
                        switch index % 4 {
                        case 0: Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n".utf8)
                        case 1: Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n".utf8)
                        case 2: Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: \(String(repeating: "a", count: 100_000))\r\n\r\n".utf8)
                        default: Array("GET /v1/h\u{e9}alth HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
                        }
                    }
                    return "200 malformed heads: \(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key })"
                }
            ),
            (
                "idle-websockets",
                {
                    let upgraded = await self.blocking {
                        let sockets = (0 ..< 1000).compactMap { _ -> RawConnection? in
                            guard let connection = try? RawConnection(port: port) else { return nil }
                            try? connection.send(
                                "GET /v1/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                            )
                            return connection
                        }
                        let count = sockets.filter { RawConnection.status(of: $0.receive(timeout: 5) { $0.count > 12 }) == 101 }.count
                        Thread.sleep(forTimeInterval: 3)
                        return count
                    }
                    return "idle WebSockets upgraded and held 3 s: \(upgraded)/1000"
                }
            ),
            (
                "bad-token-bursts",
                {
                    let statuses = await self.burst(port: port, count: 2000, parallel: 16) { index in
                        Self.post("/v1/pull", token: "bad\(index)", body: Array(#"{"after":0,"limit":10}"#.utf8))
                    }
                    return "2000 pulls with bad tokens: \(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key })"
                }
            )
        ]

        // A warm connection for the probes: the first request of a process is slower.
        _ = try await URLSession.shared.data(from: serve.url.appendingPathComponent("v1/health"))
        for attack in attacks {
            let base = written
            var outcome = ""
            let latencies = try await measuringHealth(serve.url) {
                // Repeated for at least 3 s (at most 10 rounds), so that the probes see it.
                let running = Task {
                    let started = Date()
                    var rounds: [String] = []
                    repeat {
                        rounds.append(await attack.run())
                    } while Date().timeIntervalSince(started) < 3 && rounds.count < 10
                    return "\(rounds.count) rounds of \(rounds[0])"
                }
                // The legitimate client: 100 records pushed during the attack, in 5 syncs.
                for round in 0 ..< 5 {
                    for instance in 0 ..< 20 {
                        writer.set("value \(base + round * 20 + instance)", for: Path(model: 7, instance: base + round * 20 + instance + 1, property: 1))
                    }
                    _ = try? await replica.sync()
                }
                outcome = await running.value
            }
            written += 100
            // Whatever a sync during the attack did not push, one after it does.
            _ = try await replica.sync()
            _ = try await readerReplica.sync()
            let arrived = reader.records().filter { $0.path.model == 7 }.count
            let sorted = latencies.sorted()
            let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
            let crashes = serve.isRunning ? 0 : 1
            let peak = (ProcessMemory.kibibytes("VmHWM", of: serve.pid) ?? 0) / 1024
            print(
                "[reliability] hostile \(attack.name): crashes \(crashes), health p99 \(String(format: "%.1f", p99)) ms over \(latencies.count) probes, server peak RSS \(peak) MiB, \(outcome), legitimate records \(arrived)/\(written)"
            )
            #expect(crashes == 0, "\(attack.name)")
            #expect(latencies.count >= 10, "too few health probes during \(attack.name)")
            #expect(arrived == written, "\(attack.name): \(arrived) of \(written) legitimate records arrived")
            guard crashes == 0 else { return }
        }
        #expect(written == 700)
    }
}
