import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// The `studio-hostile` stage of `scripts/reliability` (PATHBASE_STUDIO_HOSTILE=1): a real
/// `pathbase studio` on a file of extreme records (timestamps at `Int64.min` and `.max`,
/// 10 MB values in two versions, markup in values and in a collection's names) gets
/// ``requestCount`` generated requests from a seeded generator: every route with huge,
/// negative and non-numeric numbers, extreme and malformed dates, Unicode, markup, raw and
/// percent-encoded bytes, and foreign `Host` headers. It fails when Studio stops, an answer
/// is not 2xx or 4xx (or there is none), a foreign `Host` is answered with a page, latency
/// passes its bound, the file's bytes change, or too few requests got a page. Then headless
/// Chromium loads every page of the file: none of the stored markup may run.
@Suite(
    "pathbase studio: generated hostile requests (scripts/reliability studio-hostile)", .serialized,
    .enabled(if: Curl.isInstalled && ProcessInfo.processInfo.environment["PATHBASE_STUDIO_HOSTILE"] == "1"))
struct StudioHostileStageTests {

    /// At least 10^4 (PATHBASE_STUDIO_HOSTILE_REQUESTS).
    static let requestCount = max(10_000, Int(ProcessInfo.processInfo.environment["PATHBASE_STUDIO_HOSTILE_REQUESTS"] ?? "") ?? 0)

    /// Generous for a loaded two-core machine (two builds beside the stage); a request that
    /// renders 10 MB into a page, or one stuck behind another, shows.
    static let maximumP99Milliseconds = 3000.0
    static let maximumMilliseconds = 30_000.0

    /// A collection whose name and field names are markup.
    struct Marked: Codable, Identifiable {
        var id: Int
        var note: String
        enum CodingKeys: String, CodingKey {
            case id
            case note = "<img src=x onerror=\"document.documentElement.setAttribute('data-executed','field')\">"
        }
    }

    /// Markup that, run, marks the page (`data-executed` on its root element): what the
    /// Chromium check looks for. In an element, in a double- and a single-quoted attribute.
    static let executing = [
        "<script>document.documentElement.setAttribute('data-executed','script')</script>",
        "\"><img src=x onerror=\"document.documentElement.setAttribute('data-executed','attribute')\">",
        "'><svg onload=\"document.documentElement.setAttribute('data-executed','quoted')\">"
    ]

    /// Model 9, instance 1: two versions of a 10 MB string of markup (StudioEdgeTests has five), then a record at
    /// `Int64.max`; instance 2 created at `Int64.min` with markup values at `Int64.min` and
    /// `Int64.max`; 200 small instances; a collection named with markup.
    static func makeFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("hostile.sqlite")
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        let unit = Self.executing[0] + "\"'"
        let large = String(repeating: unit, count: 10_000_000 / unit.utf8.count)
        database.set(InstanceStatus.created, for: .status(model: 9, instance: 1))
        for version in 1 ... 2 { database.set("\(version)" + large, for: Path(model: 9, instance: 1, property: 1)) }
        database.set("<b>at the end of time</b>", for: Path(model: 9, instance: 1, property: 2), timestamp: Timestamp(time: .max, counter: .max, replica: .max))
        database.set(InstanceStatus.created, for: .status(model: 9, instance: 2), timestamp: Timestamp(time: .min))
        database.set("<iframe src=javascript:alert(2)>", for: Path(model: 9, instance: 2, property: 1), timestamp: Timestamp(time: .min, counter: 1))
        database.set(Int.min, for: Path(model: 9, instance: 2, property: 3), timestamp: Timestamp(time: .max))
        database.set(Data(repeating: 0xFF, count: 1000), for: Path(model: 9, instance: 2, property: 4))
        for (offset, markup) in Self.executing.enumerated() { database.set(markup, for: Path(model: 9, instance: 2, property: 5 + offset)) }
        try database.batch {
            for instance in 3 ... 200 {
                database.set(InstanceStatus.created, for: .status(model: 9, instance: instance))
                database.set("row \(instance) <u>\u{202E}élan 💥</u>", for: Path(model: 9, instance: instance, property: 1))
                database.set(instance * 1_000_003, for: Path(model: 9, instance: instance, property: 3))
            }
        }
        let marked = database.collection(Marked.self, name: "<script>document.documentElement.setAttribute('data-executed','collection')</script>")
        try marked.save(Marked(id: 1, note: Self.executing[2]))
        return path
    }

    /// The file's SHA-256, by sha256sum.
    static func hash(_ path: String) throws -> String {
        let ended = try ChildProcess.run("/usr/bin/sha256sum", [path])
        return String(ended.output.prefix { $0 != " " })
    }

    /// One generated request: its request line's target and its `Host`, and whether that
    /// `Host` is one Studio must refuse.
    struct Generated: Sendable {
        let target: String
        let host: String
        let foreign: Bool
    }

    static let numbers = [
        "0", "1", "2", "9", "-1", "200", "201", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "99999999999999999999999999", "1e308", "NaN", "0x10", "+1", " 1", "1.5", "", "٣", "1%00"
    ]
    static let moments = [
        "99999999-01-01T00:00:00Z", "294247-01-10T04:00:54.775807Z", "294248-01-01T00:00:00Z", "-290308-01-01T00:00:00Z", "0000-01-01T00:00:00Z",
        "2026-13-45T25:61:61Z", "2026-11-28T02:10:05.1234567Z", "2026-11-28T02:10:05.Z", "2026-11-28T02:10", "1969-12-31T23:59:59.999999Z",
        "-9223372036854775808", "9223372036854775807", "now", "1.2.3"
    ]
    static let cursors = [
        "1.2.3", "9223372036854775807.4294967295.4294967295", "-9223372036854775808.0.0", "1.4294967296.0", "..", "a.b.c", "1.-1.0", "1..2", "1.2.3.4"
    ]
    static let texts = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "'\"`", "é", "💥", "\u{202E}rtl", String(repeating: "e\u{301}", count: 2000),
        "%FF%FE", "%00", "%", "%zz", "a+b", "javascript:alert(1)", String(repeating: "x", count: 6000), "row 7 <u>\u{202E}élan 💥</u>", "true"
    ]
    static let parameters = ["at", "from", "to", "after", "offset", "sort", "order", "filter", "value", "status", "version", "token", "at"]

    static func generate(_ count: Int, port: Int, seed: UInt64) -> [Generated] {
        var random = SplitMix64(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func id() -> String { random.next() % 3 == 0 ? pick(numbers) : pick(["1", "2", "3", "9", "5"]) }
        func encoded(_ text: String) -> String {
            // Half as a browser encodes, half raw (Unicode, markup and stray % as they are; only
            // the spaces that would end the request line encoded).
            random.next() % 2 == 0
                ? (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text) : text.replacingOccurrences(of: " ", with: "%20")
        }
        let hosts: [(String, Bool)] = [
            ("attacker.example", true), ("attacker.example:\(port)", true), ("127.evil.example:\(port)", true), ("localhost:\(port + 1)", true),
            ("", true), ("<script>:\(port)", true), ("127.0.0.1:\(port)@evil", true), (String(repeating: "a", count: 3000), true)
        ]
        return (0 ..< count).map { _ in
            let model = random.next() % 4 == 0 ? id() : "9"
            var path =
                switch random.next() % 10 {
                case 0: "/"
                case 1, 2: "/models/\(model)"
                case 3, 4: "/models/\(model)/instances/\(id())"
                case 5: "/models/\(model)/instances/\(id())/properties/\(id())"
                case 6: "/changes"
                case 7: "/records"
                case 8: "/assets/\(encoded(pick(texts + numbers)))"
                default: "/\(encoded(pick(texts)))/\(id())"
                }
            if random.next() % 100 == 0 { path = "/models/9/instances/1" }
            var query: [String] = []
            for _ in 0 ..< Int(random.next() % 4) {
                let name = pick(parameters)
                let value: String =
                    switch random.next() % 4 {
                    case 0: pick(numbers)
                    case 1: pick(moments)
                    case 2: pick(cursors)
                    default: pick(texts)
                    }
                query.append("\(name)=\(encoded(value))")
            }
            let target = path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
            if random.next() % 6 == 0 {
                let (host, foreign) = pick(hosts)
                return Generated(target: target, host: host, foreign: foreign)
            }
            return Generated(target: target, host: pick(["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]), foreign: false)
        }
    }

    /// One request on a connection of its own: the status (nil without an answer) and the
    /// milliseconds until the server closed the connection.
    static func send(_ request: Generated, port: Int) -> (status: Int?, milliseconds: Double) {
        let started = Date()
        do {
            let connection = try RawConnection(port: port)
            try connection.send(Array("GET \(request.target) HTTP/1.1\r\nHost: \(request.host)\r\nConnection: close\r\n\r\n".utf8))
            let answer = connection.receive(timeout: 60)
            return (RawConnection.status(of: answer), Date().timeIntervalSince(started) * 1000)
        } catch {
            return (nil, Date().timeIntervalSince(started) * 1000)
        }
    }

    @Test("10^4 generated hostile requests: Studio keeps running, every answer 2xx or 4xx, foreign Hosts refused, bounded latency, the file unchanged")
    func hostileRequests() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(in: directory)
        let before = try Self.hash(path)
        let studio = try await StudioPages.start([path])
        let port = try #require(studio.url.port)
        let seed = UInt64(ProcessInfo.processInfo.environment["PATHBASE_STUDIO_HOSTILE_SEED"] ?? "") ?? UInt64.random(in: 1 ... 1_000_000)
        let requests = Self.generate(Self.requestCount, port: port, seed: seed)
        let workers = 4
        let results = Locked<[(index: Int, status: Int?, milliseconds: Double)]>([])
        let started = Date()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Blocking sockets, on threads of their own rather than the cooperative pool.
            Thread {
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    var mine: [(index: Int, status: Int?, milliseconds: Double)] = []
                    for index in stride(from: worker, to: requests.count, by: workers) {
                        let (status, milliseconds) = Self.send(requests[index], port: port)
                        mine.append((index, status, milliseconds))
                    }
                    results.withLock { $0 += mine }
                }
                continuation.resume()
            }.start()
        }
        let seconds = Date().timeIntervalSince(started)
        let running = studio.isRunning
        let state = studio.state
        #expect(await studio.stop() == 0, "\(state)")
        let after = try Self.hash(path)
        let answers = results.current
        var statuses: [Int: Int] = [:]
        var violations: [String] = []
        for answer in answers {
            let request = requests[answer.index]
            guard let status = answer.status else {
                violations.append("no answer: GET \(request.target.prefix(200)) Host \(request.host.prefix(60))")
                continue
            }
            statuses[status, default: 0] += 1
            if !(200 ..< 300).contains(status) && !(400 ..< 500).contains(status) {
                violations.append("\(status): GET \(request.target.prefix(200)) Host \(request.host.prefix(60))")
            }
            if request.foreign, (200 ..< 300).contains(status) {
                violations.append("a foreign Host answered \(status): GET \(request.target.prefix(200)) Host \(request.host.prefix(60))")
            }
        }
        let latencies = answers.map(\.milliseconds).sorted()
        let p99 = latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        let p50 = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
        let slowest = latencies.last ?? 0
        let shown = statuses.keys.sorted().map { "\($0) ×\(statuses[$0] ?? 0)" }.joined(separator: ", ")
        print(
            "[reliability] studio hostile: \(answers.count) requests (seed \(seed)) in \(Int(seconds)) s, \(running ? 0 : 1) crashes, \(violations.count) violations; "
                + "statuses \(shown); p50 \(Int(p50)) ms, p99 \(Int(p99)) ms, max \(Int(slowest)) ms; file sha256 \(before == after ? "unchanged" : "CHANGED") \(after.prefix(16))…")
        #expect(running, "Studio stopped: \(state)")
        #expect(answers.count == Self.requestCount)
        #expect(violations.isEmpty, "\(violations.count) violations, first: \(violations.prefix(10))")
        #expect(before == after && !before.isEmpty, "the file's bytes changed")
        #expect(p99 <= Self.maximumP99Milliseconds, "p99 \(p99) ms")
        #expect(slowest <= Self.maximumMilliseconds, "slowest \(slowest) ms")
        // The generator must reach pages, not only refusals: a tenth at least got a 200.
        #expect((statuses[200] ?? 0) >= Self.requestCount / 10, "\(shown)")
        #expect((statuses[421] ?? 0) >= Self.requestCount / 20, "foreign Hosts: \(shown)")
    }

    /// The page's DOM after headless Chromium loaded it and ran its scripts (five seconds of
    /// virtual time).
    static func renderedDOM(_ url: String, profile: String) throws -> String {
        let ended = try ChildProcess.run(
            "/usr/bin/chromium",
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(profile)",
                "--virtual-time-budget=5000", "--dump-dom", url
            ], timeout: 90)
        guard ended.status == 0 else { throw StudioCheckFailure("chromium on \(url.prefix(120)) exited \(ended.status): \(ended.errors.suffix(400))") }
        return ended.output
    }

    struct StudioCheckFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("headless Chromium loads every page of the file (overview, tables, instances, whole values, changes, records): no stored markup runs")
    func storedMarkupNeverRuns() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            "Chromium is not installed: scripts/studio-browser-test --install-only installs it")
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(in: directory)
        let profile = directory.file("chromium-profile")
        // The check sees markup that runs: on a page that runs it, the mark is there.
        let probePage = "<html><body>" + Self.executing[0] + "</body></html>"
        let probe = try Self.renderedDOM("data:text/html," + (probePage.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""), profile: profile)
        try #require(probe.contains("data-executed=\"script\""), "Chromium ran no script of the probe page: \(probe.prefix(300))")

        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        // Every page the overview and the tables link to, with the whole values and the
        // changes and records pages.
        var pages = ["/", "/changes", "/records", "/models/9?status=all", "/models/9/instances/1/properties/1", "/models/9/instances/2/properties/5"]
        let head = try await Curl.run(["-sS", "-D", "-", "-o", "/dev/null", StudioPages.address(studio, "/")])
        #expect(head.output.lowercased().contains("content-security-policy: default-src 'self'; script-src 'self'"), "\(head.output)")
        let overview = try await StudioPages.page(studio, "/")
        let models = Self.links(matching: #"/models/[0-9]+"#, in: overview)
        try #require(models.count >= 2, "the overview links \(models)")
        pages += models
        for model in models {
            pages += Self.links(matching: #"\#(model)/instances/[0-9]+"#, in: try await StudioPages.page(studio, model)).prefix(3)
        }
        pages += (0 ..< Self.executing.count).map { "/models/9/instances/2/properties/\(5 + $0)" }
        var executed: [String] = []
        for page in Set(pages).sorted() {
            let dom = try Self.renderedDOM(StudioPages.address(studio, page), profile: profile)
            #expect(dom.contains("</html>") || page.contains("/properties/"), "\(page): \(dom.prefix(200))")
            if let range = dom.range(of: "data-executed=\"") {
                executed.append("\(page): \(dom[range.lowerBound...].prefix(40))")
            }
        }
        print("[reliability] studio markup: \(Set(pages).count) pages in headless Chromium, \(executed.count) ran stored markup")
        #expect(studio.isRunning)
        #expect(executed.isEmpty, "stored markup ran: \(executed)")
    }

    /// The distinct `href` targets on a page that match `pattern` whole, in page order.
    static func links(matching pattern: String, in page: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: #"href="(\#(pattern))""#) else { return [] }
        var seen: [String] = []
        for match in expression.matches(in: page, range: NSRange(page.startIndex..., in: page)) {
            if let range = Range(match.range(at: 1), in: page), !seen.contains(String(page[range])) { seen.append(String(page[range])) }
        }
        return seen
    }
}
