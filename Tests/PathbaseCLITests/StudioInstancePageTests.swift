import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

// Model ids 3120–3129 in this file.

@Model(id: 3120)
final class StudioRoom {
    @Property(id: 1) var name: String
}

@Model(id: 3121)
final class StudioRecording {
    @Property(id: 1) var title: String
    @Reference(id: 2) var room: StudioRoom?
    @ReferenceList(id: 3) var related: [StudioRecording]
    @Property(id: 4) var media: Asset?
}

/// The instance page of `pathbase studio`: references as links, "referenced by", asset
/// previews and the asset downloads behind them (with `Range`), on a real process.
@Suite("pathbase studio: instance page", .enabled(if: Curl.isInstalled))
struct StudioInstancePageTests {

    static let room = StudioRoom.modelId
    static let recording = StudioRecording.modelId

    /// An image's content: the PNG signature, then 1000 numbered bytes.
    static let image = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0 ..< 1000).map { UInt8($0 % 251) })

    /// Rooms 1 (named with markup and quotes) and 2; recordings 1 and 2 in room 1, 3 in room 2
    /// then deleted; 1 relates to 2 and 3; 1 holds the image, 2 bytes of no known type.
    static func makeFile(in directory: TemporaryDirectory) async throws -> (path: String, image: Asset, other: Asset) {
        let path = directory.file("recordings.sqlite")
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        let image = try await database.storeAsset(Self.image)
        let other = try await database.storeAsset(Data("plain bytes, no signature".utf8))
        let studioA = StudioRoom.create(in: database, id: 1, name: #"<b>Studio "A"</b>"#)
        let studioB = StudioRoom.create(in: database, id: 2, name: "Studio B")
        let second = StudioRecording.create(in: database, id: 2, title: "Take 2", room: studioA, related: [], media: other)
        let third = StudioRecording.create(in: database, id: 3, title: "Take 3", room: studioB, related: [], media: nil)
        StudioRecording.create(in: database, id: 1, title: "Take 1", room: studioA, related: [second, third], media: image)
        third.delete()
        return (path, image, other)
    }

    @Test("references are links to the instances they point at, at the page's moment")
    func referenceLinks() async throws {
        let directory = try TemporaryDirectory()
        let (path, _, _) = try await Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let properties = StudioPages.table("properties", in: try await StudioPages.page(studio, "/models/\(Self.recording)/instances/1"))
        #expect(properties.contains("<a class=\"reference\" href=\"/models/\(Self.room)/instances/1\">"), "\(properties)")
        for related in [2, 3] {
            #expect(properties.contains("<a class=\"reference\" href=\"/models/\(Self.recording)/instances/\(related)\">"), "\(properties)")
        }
        // At a moment, a link keeps it: the instance it points at as it was then.
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let then = StudioPages.table("properties", in: try await StudioPages.page(studio, "/models/\(Self.recording)/instances/1?at=\(now)"))
        #expect(then.contains("href=\"/models/\(Self.room)/instances/1?at=\(now)\""), "\(then)")
        // The link leads to a page that exists.
        let target = try await StudioPages.page(studio, "/models/\(Self.room)/instances/1")
        #expect(target.contains("&lt;b&gt;Studio &quot;A&quot;&lt;/b&gt;"))
    }

    @Test("referenced by lists the active instances pointing at one, through references and reference lists")
    func referencedBy() async throws {
        let directory = try TemporaryDirectory()
        let (path, _, _) = try await Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let room = StudioPages.table("referenced-by", in: try await StudioPages.page(studio, "/models/\(Self.room)/instances/1"))
        #expect(room.contains("<td>2</td>"), "two recordings in room 1: \(room)")
        for recording in [1, 2] {
            #expect(room.contains("<a class=\"referrer\" href=\"/models/\(Self.recording)/instances/\(recording)\">"), "\(room)")
        }
        #expect(room.contains("<td>room</td>"), "the property it points through, by its recorded name: \(room)")
        // Recording 3 was deleted: room 2 has no active referrer.
        let empty = try await StudioPages.page(studio, "/models/\(Self.room)/instances/2")
        #expect(empty.contains("id=\"referenced-by\">No instance references this one."), "\(empty)")
        // Through the reference list: recording 1 relates to 2.
        let listed = StudioPages.table("referenced-by", in: try await StudioPages.page(studio, "/models/\(Self.recording)/instances/2"))
        #expect(listed.contains("href=\"/models/\(Self.recording)/instances/1\""), "\(listed)")
    }

    @Test("assets are previewed by type (an image inline, other bytes as a download) and served whole without Range")
    func assetPreviews() async throws {
        let directory = try TemporaryDirectory()
        let (path, image, other) = try await Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let first = try await StudioPages.page(studio, "/models/\(Self.recording)/instances/1")
        #expect(first.contains("<img src=\"/assets/\(image.hash)\""), "\(first)")
        #expect(first.contains("data-type=\"image/png\""))
        let second = try await StudioPages.page(studio, "/models/\(Self.recording)/instances/2")
        #expect(!second.contains("<img") && second.contains("<a href=\"/assets/\(other.hash)\" download="), "\(second)")

        let whole = try await StudioPages.download(studio, "/assets/\(image.hash)", into: directory)
        #expect(whole.status == 200)
        #expect(whole.body == Self.image)
        #expect(whole.headers["content-type"] == "image/png")
        #expect(whole.headers["accept-ranges"] == "bytes")
        #expect(whole.headers["content-length"] == "\(Self.image.count)")
        let unknown = try await StudioPages.download(studio, "/assets/\(other.hash)", into: directory)
        #expect(unknown.status == 200 && unknown.headers["content-type"] == "application/octet-stream")
        #expect(unknown.headers["x-content-type-options"] == "nosniff")
        // Not a hash, or a hash the folder lacks: 404.
        #expect(try await StudioPages.download(studio, "/assets/..%2F..%2Fetc%2Fpasswd", into: directory).status == 404)
        #expect(try await StudioPages.download(studio, "/assets/" + String(repeating: "a", count: 64), into: directory).status == 404)
    }

    @Test("an asset's Range requests: 206 with exactly those bytes and Content-Range, 416 past the end, 200 without")
    func assetRanges() async throws {
        let directory = try TemporaryDirectory()
        let (path, image, _) = try await Self.makeFile(in: directory)
        let studio = try await StudioPages.start([path])
        defer { _ = studio.stop() }
        let address = "/assets/\(image.hash)"
        let size = Self.image.count
        for (range, bytes) in [("10-19", 10 ... 19), ("1000-", 1000 ... size - 1), ("-5", size - 5 ... size - 1), ("0-0", 0 ... 0), ("\(size - 2)-99999", size - 2 ... size - 1)] {
            let part = try await StudioPages.download(studio, address, ["-H", "Range: bytes=\(range)"], into: directory)
            #expect(part.status == 206, "\(range)")
            #expect(part.body == Self.image.subdata(in: bytes.lowerBound ..< bytes.upperBound + 1), "\(range)")
            #expect(part.headers["content-range"] == "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)", "\(range)")
            #expect(part.headers["content-length"] == "\(bytes.count)", "\(range)")
        }
        for range in ["\(size)-", "\(size + 10)-\(size + 20)"] {
            let refused = try await StudioPages.download(studio, address, ["-H", "Range: bytes=\(range)"], into: directory)
            #expect(refused.status == 416, "\(range)")
            #expect(refused.headers["content-range"] == "bytes */\(size)", "\(range)")
            #expect(refused.body.isEmpty)
        }
        // Not one byte range: ignored, the whole content.
        for header in ["bytes=0-1,5-6", "items=0-5", "bytes=9-3"] {
            let whole = try await StudioPages.download(studio, address, ["-H", "Range: \(header)"], into: directory)
            #expect(whole.status == 200 && whole.body == Self.image, "\(header)")
        }
    }

    @Test("browsing instance pages with references, referrers and assets leaves the file and its folder unchanged")
    func neverWrites() async throws {
        let directory = try TemporaryDirectory()
        let (path, image, _) = try await Self.makeFile(in: directory)
        let watched = [path, path + ".assets/" + image.hash]
        let before = try watched.map { (try Data(contentsOf: URL(fileURLWithPath: $0)), try FileManager.default.attributesOfItem(atPath: $0)[.modificationDate] as? Date) }
        let studio = try await StudioPages.start([path])
        // Each "referenced by" runs an inverse lookup, which on a writable file creates the
        // property's covering value index; here it must not, and must still answer.
        for page in ["/models/\(Self.room)/instances/1", "/models/\(Self.room)/instances/2", "/models/\(Self.recording)/instances/1", "/models/\(Self.recording)/instances/2"] {
            let html = try await StudioPages.page(studio, page)
            #expect(html.contains("Referenced by"), "\(page)")
        }
        let referrers = StudioPages.table("referenced-by", in: try await StudioPages.page(studio, "/models/\(Self.room)/instances/1"))
        #expect(referrers.contains("instances/1\"") && referrers.contains("instances/2\""), "\(referrers)")
        _ = try await StudioPages.download(studio, "/assets/\(image.hash)", ["-H", "Range: bytes=0-9"], into: directory)
        #expect(await studio.stop() == 0)
        for (file, (bytes, modified)) in zip(watched, before) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes, "\(file)")
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date == modified, "\(file)")
        }
        let log = path + "-wal"
        if FileManager.default.fileExists(atPath: log) {
            #expect(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int == 0)
        }
    }
}
