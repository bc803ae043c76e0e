import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The owner each `StudioBenchItem` references: the "referenced by" of an instance page.
@Model(id: 22)
final class StudioBenchOwner {
    @Property(id: 1)
    var name: String
}

/// The model of the Studio benchmark: a title, a rank to filter on, and a reference.
@Model(id: 23)
final class StudioBenchItem {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var rank: Int

    @Reference(id: 3)
    var owner: StudioBenchOwner?
}

/// `pathbase-bench studio`: how long a real `pathbase studio` process (the executable next to
/// `pathbase-bench`) takes to answer each kind of page, over HTTP on loopback, one request at
/// a time: p50 and p99 against the goal of issue 50, every page built in ≤ 100 ms.
///
/// The file: 10^6 `StudioBenchItem`s (10^3 with `--smoke`) and one `StudioBenchOwner` per 10
/// items, history kept; every item property written 10 times (created, then 9 rounds that
/// each rewrite every item's title, rank and owner, in batches of 10^5 items), so 3·10^7
/// item records. The lines (`N` requests each, a different instance or page each time):
///
/// - `studio.overview`: `/`
/// - `studio.table`: `/models/23?after=K`, a keyset page of 100 rows
/// - `studio.filtered-table`: `/models/23?filter=2&value=R`, a rank's items through the SQL push-down
/// - `studio.instance`: an item's page (its owner a link, its history of 10 versions a property)
/// - `studio.instance.referenced-by`: an owner's page, with its 10 referrers (the inverse lookup)
/// - `studio.instance-at-date`: an item's page as it was after the 5th of the 10 rounds
/// - `studio.changes`: `/changes` between two moments of the last round
/// - `studio.sorted-table`: `/models/23?sort=1&offset=K`, a page of the items sorted by title
///   at a random place (no index sorts by title: the first request reads and sorts every
///   item, and Studio keeps the order until the file changes)
///
/// Studio opens the file read-only, so it never creates the value indexes that a filter and
/// an inverse lookup start from: the file has them when the app that wrote it ran such
/// queries. The `.no-index` lines measure the filtered table and "referenced by" on the file
/// as written (no index: each page scans one window of 100 000 items, and links to the
/// next; the filtered page a window after a random item); the other lines run after the benchmark has
/// made them, as the app's `fetch(QueryDescriptor(where: \.rank == r))` and
/// `owner.referrers(through: \.owner)` would.
enum StudioBenchmark {

    static let goal = 100.0

    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-bench-studio-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("studio.sqlite").path

        let items = BenchScale.count(1_000_000, smoke: 1000)
        let owners = max(1, items / 10)
        let started = Date()
        let moments = try build(path: path, items: items, owners: owners)
        SyncBenchmark.line("studio: built \(items) items × 3 properties × 10 versions and \(owners) owners in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")

        let requests = BenchScale.count(200, smoke: 3)
        var random = SystemRandomNumberGenerator()
        func item() -> Int { Int.random(in: 0 ..< items, using: &random) }
        func owner() -> Int { Int.random(in: 0 ..< owners, using: &random) }
        func rank() -> Int { Int.random(in: 0 ..< items, using: &random) }
        let itemModel = StudioBenchItem.modelId
        let ownerModel = StudioBenchOwner.modelId

        if BenchScale.runs("studio.filtered-table.no-index") || BenchScale.runs("studio.instance.referenced-by.no-index") {
            let studio = try await ServeProcess(arguments: ["studio", path, "--port", "0"])
            defer { _ = studio.stop() }
            try await measure("studio.filtered-table.no-index", studio, requests: requests) { "/models/\(itemModel)?filter=2&value=\(rank())&after=\(item())" }
            try await measure("studio.instance.referenced-by.no-index", studio, requests: requests) { "/models/\(ownerModel)/instances/\(owner())" }
        }

        try makeIndexes(path: path)
        let studio = try await ServeProcess(arguments: ["studio", path, "--port", "0"])
        defer { _ = studio.stop() }
        try await measure("studio.overview", studio, requests: requests) { "/" }
        try await measure("studio.table", studio, requests: requests) { "/models/\(itemModel)?after=\(max(0, item() - 100))" }
        try await measure("studio.filtered-table", studio, requests: requests) { "/models/\(itemModel)?filter=2&value=\(rank())" }
        try await measure("studio.instance", studio, requests: requests) { "/models/\(itemModel)/instances/\(item())" }
        try await measure("studio.instance.referenced-by", studio, requests: requests) { "/models/\(ownerModel)/instances/\(owner())" }
        try await measure("studio.instance-at-date", studio, requests: requests) { "/models/\(itemModel)/instances/\(item())?at=\(moments.middle)" }
        try await measure("studio.changes", studio, requests: requests) { "/changes?from=\(moments.lastRoundStart)&to=\(moments.lastRoundStart + 1000)" }
        try await measure("studio.sorted-table", studio, requests: requests) { "/models/\(itemModel)?sort=1&offset=\(max(0, item() - 100))" }
    }

    /// Writes the file; the moment after the 5th round and the start of the last one.
    private static func build(path: String, items: Int, owners: Int) throws -> (middle: Int64, lastRoundStart: Int64) {
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        let batchSize = 100_000
        var ownerHandles: [StudioBenchOwner] = []
        try database.batch {
            ownerHandles = (0 ..< owners).map { StudioBenchOwner.create(in: database, id: $0, name: "owner \($0)") }
        }
        var middle: Int64 = 0
        var lastRoundStart: Int64 = 0
        for round in 0 ..< 10 {
            if round == 9 { lastRoundStart = now() }
            for first in stride(from: 0, to: items, by: batchSize) {
                try database.batch {
                    for index in first ..< min(items, first + batchSize) {
                        let owner = ownerHandles[(index + round) % owners]
                        let rank = (index &* 7919 &+ round) % items
                        if round == 0 {
                            StudioBenchItem.create(in: database, id: index, title: "item \(index)", rank: rank, owner: owner)
                        } else {
                            let handle = StudioBenchItem(database: database, id: index)
                            handle.title = "item \(index), version \(round + 1)"
                            handle.rank = rank
                            handle.owner = owner
                        }
                    }
                }
            }
            if round == 4 { middle = now() }
        }
        return (middle, lastRoundStart)
    }

    /// The value indexes of `rank` and `owner`, made as the app's own queries make them.
    private static func makeIndexes(path: String) throws {
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        blackHole(database.fetch(QueryDescriptor<StudioBenchItem>(where: \.rank == 1)))
        blackHole(StudioBenchOwner(database: database, id: 0).referrers(through: \StudioBenchItem.owner))
    }

    /// Fetches `requests` pages one after another (`page` gives each one's path) and prints
    /// `NAME: p50 X ms, p99 Y ms (N requests; goal ≤ 100 ms: met|missed; first Z ms)`.
    private static func measure(_ name: String, _ studio: ServeProcess, requests: Int, page: () -> String) async throws {
        guard BenchScale.runs(name) else { return }
        let base = studio.url.absoluteString.hasSuffix("/") ? String(studio.url.absoluteString.dropLast()) : studio.url.absoluteString
        // One request first, not counted: the connection and the process's first statements
        // (and what a page keeps once read, such as the overview's counts). Printed as `first`.
        let clock = ContinuousClock()
        let firstStart = clock.now
        _ = try await fetch(base + page())
        let first = Self.milliseconds(firstStart.duration(to: clock.now))
        var milliseconds: [Double] = []
        for _ in 0 ..< requests {
            let address = base + page()
            let start = clock.now
            _ = try await fetch(address)
            milliseconds.append(Self.milliseconds(start.duration(to: clock.now)))
        }
        let latencies = Latencies(milliseconds)
        let met = latencies.p99 <= goal ? "met" : "missed"
        SyncBenchmark.line(
            "\(name): p50 \(String(format: "%.1f", latencies.p50)) ms, p99 \(String(format: "%.1f", latencies.p99)) ms (\(requests) requests; goal ≤ \(Int(goal)) ms: \(met); first \(String(format: "%.1f", first)) ms)"
        )
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// A page's body; anything but 200 fails the line.
    private static func fetch(_ address: String) async throws -> Data {
        guard let url = URL(string: address) else { throw BenchmarkError.unexpected("not an address: \(address)") }
        let (data, response) = try await URLSession.shared.data(from: url)
        guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 else {
            throw BenchmarkError.unexpected("\(address): HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0): \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return data
    }

    private static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000_000)
    }
}
