import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseStudio
import PathbaseTestSupport
import Testing

/// `pathbase studio` at the edges (issue 61): numbers out of range in a request or in the
/// file, `Host` headers of other sites, and values far larger than a page.
@Suite("pathbase studio: the edges", .enabled(if: Curl.isInstalled))
struct StudioEdgeTests {

    private static let model: ModelKey = 5

    /// Model 5: instance 1 created at `Int64.min` and titled "oldest" then, "newest" at
    /// `Int64.max`; instance 2 titled "now" at the current time.
    static func makeExtremeFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("extreme.sqlite")
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        let title = { (instance: InstanceKey) in Path(model: model, instance: instance, property: 1) }
        database.set(InstanceStatus.created, for: .status(model: model, instance: 1), timestamp: Timestamp(time: .min))
        database.set("oldest", for: title(1), timestamp: Timestamp(time: .min, counter: 1))
        database.set("newest", for: title(1), timestamp: Timestamp(time: .max, counter: .max, replica: .max))
        database.set(InstanceStatus.created, for: .status(model: model, instance: 2))
        database.set("now", for: title(2))
        return path
    }

    /// The HTTP status and body of `path`, with curl's extra `arguments`.
    static func answer(_ studio: ServeProcess, _ path: String, _ arguments: [String] = []) async throws -> (status: String, body: String) {
        let answer = try await Curl.run(arguments + ["-w", "\n%{http_code}", StudioPages.address(studio, path)])
        #expect(answer.exitStatus == 0, "\(path): \(answer)")
        let status = answer.output.split(separator: "\n").last.map(String.init) ?? ""
        return (status, String(answer.output.dropLast(status.count)))
    }

    @Test("numbers out of range in a request are a 400 with the reason; records at Int64.min and .max are shown; Studio keeps running")
    func numbersOutOfRange() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeExtremeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let cases: [(String, String, String?)] = [
            // First: before issue 61, a record at Int64.min stopped Studio on its first /changes.
            ("/changes", "200", "newest"),
            ("/?at=99999999-01-01T00:00:00Z", "400", "at must be"), ("/changes?from=99999999-01-01T00:00:00Z", "400", "from must be"),
            ("/changes?to=99999999-01-01T00:00:00.5Z", "400", "to must be"), ("/models/5/instances/1?at=294248-01-01T00:00:00Z", "400", "at must be"), ("/?at=294246-01-01T00:00:00Z", "200", nil),
            ("/?at=-99999999-01-01T00:00:00Z", "400", "at must be"), ("/?at=99999999999999999999", "400", "at must be"),
            ("/changes?from=-9223372036854775808", "200", nil), ("/changes?to=9223372036854775807", "200", nil),
            ("/?at=-9223372036854775808", "200", nil), ("/?at=9223372036854775807", "200", nil), ("/models/5/instances/1", "200", "newest"),
            ("/models/5/instances/1?at=-9223372036854775808", "200", "oldest"), ("/records", "200", "oldest"),
            ("/records?after=9223372036854775807.4294967295.4294967295", "200", nil), ("/records?after=-9223372036854775808.0.0", "200", nil),
            ("/models/5?offset=9223372036854775807&sort=1", "200", nil), ("/models/5?after=9223372036854775807", "200", nil),
            ("/models/5?offset=-1", "400", "offset"), ("/models/5?offset=99999999999999999999", "400", "offset must be an integer"),
            ("/models/5/instances/9223372036854775807", "404", nil), ("/models/5/instances/-9223372036854775808", "404", nil),
            ("/models/99999999999999999999", "400", nil), ("/models/5?filter=99999999999999999999", "400", "filter"),
            ("/models/5?sort=9223372036854775807&order=desc", "200", nil)
        ]
        for (page, status, reason) in cases {
            let (got, body) = try await Self.answer(studio, page)
            #expect(got == status, "\(page): \(got) \(body.prefix(300))")
            if let reason { #expect(body.contains(reason), "\(page): \(body.prefix(300))") }
        }
        #expect(studio.isRunning, "\(studio.state)")
        #expect(try await Self.answer(studio, "/").status == "200")
    }

    @Test("a loopback Studio answers only Host values of loopback names and addresses with its port: another site's name is a 421")
    func hostOnLoopback() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeExtremeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let port = try #require(studio.url.port)
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "127.1.2.3:\(port)", "[::1]:\(port)"] {
            #expect(try await Curl.status(["-H", "Host: \(host)", StudioPages.address(studio, "/models/5")]).output == "200", "\(host)")
        }
        for host in [
            "attacker.example", "attacker.example:\(port)", "127.evil.example:\(port)", "localhost.evil.example:\(port)", "127.0.0.1.nip.io:\(port)",
            "127.0.0.1:\(port == 1 ? 2 : port - 1)", "10.0.0.1:\(port)", "[::2]:\(port)", "127.0.0.1:\(port)@evil", "", "<script>:\(port)"
        ] {
            let (status, body) = try await Self.answer(studio, "/models/5", ["-H", "Host: \(host)"])
            #expect(status == "421", "Host \(host): \(status)")
            #expect(body.contains("Host") && !body.contains("instances/1"), "Host \(host): \(body.prefix(300))")
        }
        #expect(studio.isRunning)
    }

    @Test("a name is loopback only when it is localhost or an address in 127.0.0.0/8 or ::1")
    func loopbackNames() {
        for host in ["127.0.0.1", "127.255.0.9", "::1", "localhost", "LocalHost", "0:0:0:0:0:0:0:1"] {
            #expect(StudioServer.isLoopback(host), "\(host)")
        }
        for host in ["127.evil.example", "127.0.0.1.nip.io", "127.0.0.256", "127.0.0", "localhost.evil.example", "0.0.0.0", "::", "10.0.0.1", "", "128.0.0.1"] {
            #expect(!StudioServer.isLoopback(host), "\(host)")
        }
    }

    @Test("off loopback the token stays, and a request with it still needs a Host of this machine")
    func hostOffLoopback() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeExtremeFile(in: directory)
        let studio = try await StudioPages.start([path, "--host", "0.0.0.0"])
        defer { _ = studio.stop() }
        let token = try #require(URLComponents(url: studio.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        let port = try #require(studio.url.port)
        let base = "http://127.0.0.1:\(port)"
        #expect(try await Curl.status([base + "/"]).output == "401")
        #expect(try await Curl.status([base + "/?token=\(token)"]).output == "200")
        #expect(try await Curl.status(["-H", "Host: 192.168.1.20:\(port)", base + "/?token=\(token)"]).output == "200")
        #expect(try await Curl.status(["-H", "Host: attacker.example:\(port)", base + "/?token=\(token)"]).output == "421")
    }

    @Test("a reference's type column names what it points at: reference to StudioRoom, list of StudioRecording")
    func referenceTypes() async throws {
        let directory = try TemporaryDirectory()
        let (path, _, _) = try await StudioInstancePageTests.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let properties = StudioPages.table("properties", in: try await StudioPages.page(studio, "/models/\(StudioRecording.modelId)/instances/1"))
        #expect(properties.contains("<td>reference to StudioRoom</td>"), "\(properties)")
        #expect(properties.contains("<td>list of StudioRecording</td>"), "\(properties)")
        #expect(!properties.contains("<td>Optional<Int></td>") && !properties.contains("<td>Array<Int></td>"), "\(properties)")
    }

    @Test("five versions of a 10 MB string: every page stays small, and the whole value is one link away")
    func pagesStaySmall() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("large.sqlite")
        let large = String(repeating: "<b>x</b>'\"", count: 1_000_000)
        do {
            let database = try SQLiteDatabase(path: path)
            defer { database.close() }
            database.set(InstanceStatus.created, for: .status(model: 7, instance: 1))
            for version in 1 ... 5 { database.set("\(version)" + large, for: Path(model: 7, instance: 1, property: 1)) }
        }
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let bound = 256 * 1024
        var instance = ""
        for page in ["/", "/models/7", "/models/7?status=all", "/models/7/instances/1", "/changes", "/records"] {
            let started = Date()
            let html = try await StudioPages.page(studio, page)
            #expect(html.utf8.count < bound, "\(page): \(html.utf8.count) bytes")
            print("studio edges: \(page) of five versions of a 10 MB string: \(html.utf8.count) bytes in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
            #expect(!html.contains("<b>x"), "\(page): escaped")
            if page == "/models/7/instances/1" { instance = html }
        }
        let link = try #require(StudioPages.link(class: "whole-value", in: instance), "a link to the whole value")
        let whole = try await StudioPages.download(studio, link, into: directory)
        #expect(whole.status == 200)
        #expect(whole.body == Data(("5" + large).utf8), "\(whole.body.count) bytes")
        #expect(whole.headers["content-type"]?.hasPrefix("text/plain") == true, "\(whole.headers)")
        #expect(whole.headers["x-content-type-options"] == "nosniff")
        // An older version, from the history.
        let history = StudioPages.table("properties", in: instance).isEmpty ? "" : instance
        let older = history.components(separatedBy: "class=\"whole-value\" href=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
        #expect(older.count >= 5, "current value and its history each link to their whole value")
        if let first = older.last {
            let oldest = try await StudioPages.download(studio, String(first).replacingOccurrences(of: "&amp;", with: "&"), into: directory)
            #expect(oldest.body.prefix(1) == Data("1".utf8) && oldest.body.count == ("1" + large).utf8.count)
        }
        for bad in ["/models/7/instances/1/properties/1?version=x", "/models/7/instances/1/properties/9", "/models/7/instances/1/properties/1?version=1.2.3"] {
            let status = try await Curl.status([StudioPages.address(studio, bad)]).output
            #expect(status == "400" || status == "404", "\(bad): \(status)")
        }
    }

    @Test("a multi-MB string's pages show the start a whole read showed, cut between characters, with the whole size")
    func longValuesCutBetweenCharacters() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("wide.sqlite")
        let title = Path(model: 8, instance: 1, property: 1)
        // 4 and 2 bytes a character: each cut below falls inside a character.
        let older = "1" + String(repeating: "😀", count: 1_000_000)
        let newer = "2" + String(repeating: "é", count: 3_000_000)
        do {
            let database = try SQLiteDatabase(path: path)
            defer { database.close() }
            database.set(InstanceStatus.created, for: .status(model: 8, instance: 1))
            database.set(older, for: title)
            database.set(newer, for: title)
            database.set(Data(count: 3_000_000), for: Path(model: 8, instance: 1, property: 2))
            database.set(42, for: Path(model: 8, instance: 1, property: 3))
            database.set(String(repeating: "a", count: 5_000_000), for: Path(model: 8, instance: 1, property: 4))
        }
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let page = try await StudioPages.page(studio, "/models/8/instances/1")
        let properties = StudioPages.table("properties", in: page)
        // The current value: 4096 bytes at most, 4095 of them whole characters.
        let shown = "2" + String(repeating: "é", count: 2047) + "…"
        #expect(properties.contains("<td class=\"value\">\(shown) <a class=\"whole-value\""), "\(properties.prefix(300))")
        #expect(properties.contains("whole value (6000001 bytes) →</a></td><td>String</td>"))
        #expect(properties.contains("<td class=\"value\">3000000 bytes</td><td>Data</td>"), "\(properties)")
        #expect(properties.contains("<td class=\"value\">42</td><td>Int</td>"), "\(properties)")
        // One byte a character: exactly 4096 of them.
        #expect(properties.contains("<td class=\"value\">\(String(repeating: "a", count: 4096))… <a class=\"whole-value\""))
        #expect(properties.contains("whole value (5000000 bytes) →"))
        // The history: 200 bytes of each version at most.
        let history = page.components(separatedBy: "<ol class=\"history\" id=\"history-1\">").last ?? ""
        #expect(history.contains("<span class=\"value\">2\(String(repeating: "é", count: 99))… <a class=\"whole-value\""))
        #expect(history.contains("<span class=\"value\">1\(String(repeating: "😀", count: 49))… <a class=\"whole-value\""))
        #expect(history.contains("whole value (4000001 bytes) →"))
        // A table cell of /changes: 80 characters.
        let changes = StudioPages.table("changes", in: try await StudioPages.page(studio, "/changes"))
        #expect(changes.contains("<td class=\"value\">2\(String(repeating: "é", count: 79))… <a class=\"whole-value\""), "\(changes.prefix(600))")
        #expect(changes.contains("whole value (6000001 bytes) →"))
        // The link still leads to the whole value.
        let link = try #require(StudioPages.link(class: "whole-value", in: page))
        #expect(try await StudioPages.download(studio, link, into: directory).body == Data(newer.utf8))
    }

    @Test("records with a value prefix: strings cut at characters, bytes at bytes, with the whole size; other values whole")
    func valuePrefix() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("prefix.sqlite"))
        defer { database.close() }
        let path = { (property: PropertyKey) in Path(model: 9, instance: 1, property: property) }
        database.set(InstanceStatus.created, for: .status(model: 9, instance: 1))
        database.set("a" + String(repeating: "😀", count: 20), for: path(1))
        database.set(String(repeating: "é", count: 10), for: path(2))
        database.set(Data(0 ..< 30), for: path(3))
        database.set(Int.max, for: path(4))
        database.set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], for: path(5))
        database.set(String?.none, for: path(6))
        let values = Dictionary(uniqueKeysWithValues: try database.currentRecords(model: 9, instance: 1, valuePrefix: 10).map { ($0.path.property, $0.value) })
        #expect(values[1] as? ValuePrefix == ValuePrefix(start: .string("a" + String(repeating: "😀", count: 9)), byteCount: 81))
        #expect(values[2] as? String == String(repeating: "é", count: 10), "no longer than the prefix: whole")
        #expect(values[3] as? ValuePrefix == ValuePrefix(start: .data(Data(0 ..< 10)), byteCount: 30))
        #expect(values[4] as? Int == Int.max)
        #expect(values[5] as? [Int] == Array(1 ... 12))
        #expect(values.keys.contains(6) && values[6].flatMap { $0 as? String } == nil, "a stored nil")
        // History too, and without a prefix everything is whole.
        #expect(try database.records(model: 9, instance: 1, valuePrefix: 10).contains { $0.value is ValuePrefix })
        #expect(try database.records(model: 9, instance: 1).allSatisfy { !($0.value is ValuePrefix) })
        #expect(try database.currentRecords(model: 9, instance: 1).first { $0.path.property == 1 }?.value as? String == "a" + String(repeating: "😀", count: 20))
    }
}
