import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

// Model ids 3130–3139 in this file.

@Model(id: 3130)
final class StudioScanOwner {
    @Property(id: 1) var name: String
}

@Model(id: 3131)
final class StudioScanItem {
    @Property(id: 1) var rank: Int
    @Reference(id: 2) var owner: StudioScanOwner?
}

/// Studio on a file without the value index a filter or "referenced by" starts from (the
/// app never queried the property; Studio cannot make the index, it opens files read-only):
/// each page scans one window of the model (`StudioScan.window` instances) and links to the
/// next, and following the links finds every match — on a model larger than a window.
@Suite("pathbase studio: scans of a model larger than a page's window", .enabled(if: Curl.isInstalled))
struct StudioScanTests {

    /// More items than one window scans; the matches of rank 7 and owner 1's items, one in
    /// the first window, one past it.
    static let items = 100_050
    static let early = 5
    static let late = 100_040

    static func makeFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("large.sqlite")
        let database = try SQLiteDatabase(path: path, options: .init(keepsHistory: false))
        defer { database.close() }
        try database.batch {
            let owner = StudioScanOwner.create(in: database, id: 1, name: "the owner")
            for id in 1 ... items {
                let matches = id == early || id == late
                StudioScanItem.create(in: database, id: id, rank: matches ? 7 : 0, owner: matches ? owner : nil)
            }
        }
        return path
    }

    @Test("a filter without an index shows one window's matches and a link to the next window, which finds the rest")
    func filterScansWindows() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let model = StudioScanItem.modelId
        let first = try await StudioPages.page(studio, "/models/\(model)?filter=1&value=7")
        #expect(first.contains("id=\"scanned\""), "\(first)")
        let firstRows = StudioPages.table("instances", in: first)
        #expect(firstRows.contains("instances/\(Self.early)\"") && !firstRows.contains("instances/\(Self.late)\""), "\(firstRows)")
        let next = try #require(StudioPages.link(id: "next-page", in: first), "a link to the next window")
        #expect(next.contains("after=100000"), "the first window (100 000 instances) ends at item 100000: \(next)")
        let second = try await StudioPages.page(studio, next)
        let secondRows = StudioPages.table("instances", in: second)
        #expect(secondRows.contains("instances/\(Self.late)\"") && !secondRows.contains("instances/\(Self.early)\""), "\(secondRows)")
        #expect(StudioPages.link(id: "next-page", in: second) == nil, "the second window reached the last item")
    }

    @Test("referenced by without an index lists the first window's referrers and links to the rest, filtered on the instance")
    func referencedByScansWindows() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let owner = try await StudioPages.page(studio, "/models/\(StudioScanOwner.modelId)/instances/1")
        let referrers = StudioPages.table("referenced-by", in: owner)
        #expect(referrers.contains("instances/\(Self.early)\"") && !referrers.contains("instances/\(Self.late)\""), "\(referrers)")
        let rest = try #require(StudioPages.link(class: "scan-on", in: referrers), "\(referrers)")
        let restRows = StudioPages.table("instances", in: try await StudioPages.page(studio, rest))
        #expect(restRows.contains("instances/\(Self.late)\"") && !restRows.contains("instances/\(Self.early)\""), "\(restRows)")
    }

    @Test("once the app has queried the property, the filter runs on its index over the whole model")
    func indexedFilterIsWhole() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(in: directory)
        let database = try SQLiteDatabase(path: path)
        #expect(database.fetch(QueryDescriptor<StudioScanItem>(where: \.rank == 7)).map(\.id) == [Self.early, Self.late])
        database.close()
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let page = try await StudioPages.page(studio, "/models/\(StudioScanItem.modelId)?filter=1&value=7")
        #expect(page.contains("id=\"pushed-down\"") && !page.contains("id=\"scanned\""), "\(page)")
        let rows = StudioPages.table("instances", in: page)
        #expect(rows.contains("instances/\(Self.early)\"") && rows.contains("instances/\(Self.late)\""), "\(rows)")
    }
}
