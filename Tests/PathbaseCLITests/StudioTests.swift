import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// `pathbase studio FILE`: a real process on a free port, its pages fetched with curl.
@Suite("pathbase studio", .enabled(if: Curl.isInstalled))
struct StudioTests {

    private static let model: ModelKey = 5

    /// Model 5: instance 1 titled "first" then "second" (the moment between is returned),
    /// instance 2 titled with markup and quotes, instance 3 titled "first" and deleted.
    private static func makeFile(in directory: TemporaryDirectory) throws -> (path: String, between: Int64) {
        let path = directory.file("studio.sqlite")
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        let title = { (instance: InstanceKey) in Path(model: model, instance: instance, property: 1) }
        for instance in 1 ... 3 { database.set(InstanceStatus.created, for: .status(model: model, instance: instance)) }
        database.set("first", for: title(1))
        database.set(#"<script>alert("x")</script> it's"#, for: title(2))
        database.set("first", for: title(3))
        database.set(InstanceStatus.deleted, for: .status(model: model, instance: 3))
        Thread.sleep(forTimeInterval: 0.01)
        let between = Int64(Date().timeIntervalSince1970 * 1_000_000)
        Thread.sleep(forTimeInterval: 0.01)
        database.set("second", for: title(1))
        return (path, between)
    }

    @Test("a browsing session leaves the file's bytes and modification time unchanged and writes no WAL")
    func neverWrites() async throws {
        let directory = try TemporaryDirectory()
        let (path, between) = try Self.makeFile(in: directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        let studio = try await StudioPages.start([path])
        for page in [
            "/", "/?at=\(between)", "/models/5", "/models/5?status=all", "/models/5?filter=1&value=first", "/models/5?sort=1&order=desc",
            "/models/5/instances/1", "/models/5/instances/1?at=\(between)", "/changes", "/records", "/records?at=\(between)"
        ] {
            _ = try await StudioPages.page(studio, page)
        }
        #expect(await studio.stop() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == modified)
        // SQLite's readers of a WAL file may create the -wal and -shm files; nothing is written to the log.
        let log = path + "-wal"
        if FileManager.default.fileExists(atPath: log) {
            #expect(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int == 0)
        }
    }

    @Test("stored markup and quotes are shown as text on the table, instance, changes and records pages")
    func escapesValues() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        for page in ["/models/5", "/models/5/instances/2", "/changes", "/records"] {
            let html = try await StudioPages.page(studio, page)
            #expect(!html.contains("<script>alert"), "\(page)")
            // Markup of ours is never escaped by mistake.
            #expect(!html.contains("&lt;p ") && !html.contains("&lt;a ") && !html.contains("&lt;input "), "\(page)")
            #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; it&#39;s"), "\(page)")
        }
    }

    @Test("an instance at a moment shows the value it had then, and its history newest first")
    func timeTravel() async throws {
        let directory = try TemporaryDirectory()
        let (path, between) = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let now = StudioPages.table("properties", in: try await StudioPages.page(studio, "/models/5/instances/1"))
        #expect(now.contains("second") && !now.contains("first"), "\(now)")
        let then = StudioPages.table("properties", in: try await StudioPages.page(studio, "/models/5/instances/1?at=\(between)"))
        #expect(then.contains("first") && !then.contains("second"), "\(then)")
        let history = try await StudioPages.page(studio, "/models/5/instances/1")
        let order = ["second", "first"].compactMap { history.range(of: "<span class=\"value\">\($0)</span>")?.lowerBound }
        #expect(order.count == 2 && order[0] < order[1], "newest first")
        // The same moment as an ISO 8601 date.
        let date = Self.isoMicroseconds(between)
        let byDate = StudioPages.table("properties", in: try await StudioPages.page(studio, "/models/5/instances/1?at=\(date)"))
        #expect(byDate.contains("first") && !byDate.contains("second"), "\(byDate)")
        // The table at that moment: instance 3 was already deleted, instance 1 still "first".
        let table = StudioPages.table("instances", in: try await StudioPages.page(studio, "/models/5?status=all&at=\(between)"))
        #expect(table.contains("<td class=\"value\">first</td>") && !table.contains("second"), "\(table)")
    }

    @Test("the changes page lists a property's old and new value between two moments")
    func changes() async throws {
        let directory = try TemporaryDirectory()
        let (path, between) = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let changes = StudioPages.table("changes", in: try await StudioPages.page(studio, "/changes?from=\(between)"))
        #expect(changes.contains("<td>changed</td>"), "\(changes)")
        #expect(changes.contains("<td class=\"value\">first</td><td class=\"value\">second</td>"), "\(changes)")
        #expect(!changes.contains("script"), "instance 2 did not change after 'from'")
        let all = StudioPages.table("changes", in: try await StudioPages.page(studio, "/changes"))
        #expect(all.contains("<td>created</td>") && all.contains("<td>created and deleted</td>"), "\(all)")
    }

    @Test("changes across more records than a page reads: each path on one page, from its value at A to its value at B")
    func changesPages() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("changes.sqlite")
        let instances = 1500
        let title = { (instance: InstanceKey) in Path(model: 6, instance: instance, property: 1) }
        let database = try SQLiteDatabase(path: path)
        try database.batch {
            for instance in 1 ... instances { database.set("v0 of \(instance)", for: title(instance)) }
        }
        try await Task.sleep(for: .milliseconds(10))
        let from = Int64(Date().timeIntervalSince1970 * 1_000_000)
        // 3000 records after A: more than the 2000 a page reads.
        for version in 1 ... 2 {
            try database.batch {
                for instance in 1 ... instances { database.set("v\(version) of \(instance)", for: title(instance)) }
            }
        }
        database.close()
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        var listed: [String: Int] = [:]
        var page = "/changes?from=\(from)"
        var pages = 0
        while pages < 5 {
            let html = try await StudioPages.page(studio, page)
            pages += 1
            let rows = StudioPages.table("changes", in: html)
            for instance in 1 ... instances where rows.contains("<td class=\"value\">v0 of \(instance)</td><td class=\"value\">v2 of \(instance)</td>") {
                listed[String(instance), default: 0] += 1
            }
            #expect(!rows.contains("v1 of"), "the value at B, not the page's newest")
            guard let next = StudioPages.link(id: "next-page", in: html) else { break }
            page = next
        }
        #expect(pages == 2, "3000 records: two pages of 2000")
        #expect(listed.count == instances && listed.values.allSatisfy { $0 == 1 }, "each path once: \(listed.filter { $0.value != 1 }.prefix(5))")
    }

    @Test("a table filters by a property's value in SQL, sorts by a column, and lists deleted instances on request")
    func tableFilterAndSort() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        // As a browser's form sends it: a space as '+', and a filter on all statuses checked per instance.
        let spaced = StudioPages.table("instances", in: try await StudioPages.page(studio, "/models/5?status=all&filter=1&value=%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E+it%27s"))
        #expect(spaced.contains("instances/2\"") && !spaced.contains("instances/1\""), "\(spaced)")
        let none = try await StudioPages.page(studio, "/models/5?filter=1&value=nothing")
        #expect(none.contains("<p class=\"muted\" id=\"no-rows\">"))
        let deletedFirst = StudioPages.table("instances", in: try await StudioPages.page(studio, "/models/5?status=all&filter=1&value=first"))
        #expect(deletedFirst.contains("instances/3\"") && !deletedFirst.contains("instances/1\""), "\(deletedFirst)")
        // No app queried the title, so the file has no index of it: a scan of a window (StudioScanTests).
        let filtered = try await StudioPages.page(studio, "/models/5?filter=1&value=second")
        #expect(filtered.contains("id=\"scanned\""))
        let rows = StudioPages.table("instances", in: filtered)
        #expect(rows.contains("instances/1\"") && !rows.contains("instances/2\"") && !rows.contains("instances/3\""), "\(rows)")
        let sorted = StudioPages.table("instances", in: try await StudioPages.page(studio, "/models/5?sort=1&order=desc"))
        let positions = ["instances/1\"", "instances/2\""].compactMap { sorted.range(of: $0)?.lowerBound }
        // Descending: "second" before "<script>…".
        #expect(positions.count == 2 && positions[0] < positions[1], "\(sorted)")
        let active = StudioPages.table("instances", in: try await StudioPages.page(studio, "/models/5"))
        #expect(!active.contains("instances/3\""))
        let deleted = StudioPages.table("instances", in: try await StudioPages.page(studio, "/models/5?status=deleted"))
        #expect(deleted.contains("instances/3\"") && !deleted.contains("instances/1\""), "\(deleted)")
    }

    @Test("bad parameters answer 400 with the reason, a missing instance 404")
    func badInput() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        for (page, status, reason) in [
            ("/?at=yesterday", "400", "at must be a date"), ("/models/5?status=gone", "400", "status must be active"),
            ("/records?after=1", "400", "after must be time.counter.replica"), ("/models/5/instances/99", "404", "no such instance")
        ] {
            let answer = try await Curl.run(["-w", "\n%{http_code}", StudioPages.address(studio, page)])
            #expect(answer.output.hasSuffix(status), "\(page): \(answer)")
            #expect(answer.output.contains(reason), "\(page): \(answer)")
        }
    }

    @Test("on an address other than loopback every request needs the printed token, then its cookie")
    func tokenOffLoopback() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path, "--host", "0.0.0.0"])
        defer { _ = studio.stop() }
        let token = try #require(URLComponents(url: studio.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        let base = "http://127.0.0.1:\(try #require(studio.url.port))"
        #expect(try await Curl.status([base + "/"]).output == "401")
        #expect(try await Curl.status([base + "/models/5?token=wrong"]).output == "401")
        let cookies = directory.file("cookies")
        #expect(try await Curl.status(["-c", cookies, base + "/?token=\(token)"]).output == "200")
        #expect(try await Curl.status(["-b", cookies, base + "/models/5"]).output == "200")
    }

    private static func isoMicroseconds(_ microseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(microseconds / 1_000_000))
        let digits = String(microseconds % 1_000_000)
        return String(date.formatted(.iso8601).dropLast()) + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }
}
