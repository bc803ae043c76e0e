import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Model(id: 2610)
final class AssetSong {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var audio: Asset?

    @Property(id: 3)
    var covers: [Asset]
}

@Suite("Assets: content-addressed files beside the database")
struct AssetTests {

    @Test("An asset round-trips through a property and its file, in memory and on SQLite", arguments: [false, true])
    func roundTrip(onFile: Bool) async throws {
        let database = SQLiteTestFiles.makeDatabase(path: onFile ? SQLiteTestFiles.newPath() : nil)
        let bytes = Data("a song".utf8)
        let asset = try await database.storeAsset(bytes)
        let song = AssetSong.create(in: database, id: 1, title: "one")
        song.audio = asset
        #expect(asset.size == 6)
        let read = try #require(song.audio)
        #expect(try await read.data() == bytes)
        let url = try read.fileURL()
        #expect(url.lastPathComponent == asset.hash)
        if let path = database.path {
            #expect(url.deletingLastPathComponent().standardizedFileURL.path == URL(fileURLWithPath: path + ".assets").standardizedFileURL.path)
        }
    }

    @Test("Equal contents are stored once, and the file is named by the SHA-256 hash")
    func deduplicates() async throws {
        let database = InMemoryDatabase()
        let first = try await database.storeAsset(Data("same".utf8))
        let second = try await database.storeAsset(Data("same".utf8))
        #expect(first == second)
        // SHA-256("abc"), the FIPS 180-2 example.
        let abc = try await database.storeAsset(Data("abc".utf8))
        #expect(abc.hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let folder = try database.assetStore().folder
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.sorted() == [first.hash, abc.hash].sorted())
    }

    @Test("An in-memory database's asset folder is removed with the database")
    func temporaryFolderGoes() async throws {
        var database: InMemoryDatabase? = InMemoryDatabase()
        let asset = try await database?.storeAsset(Data("bye, temporary folder".utf8))
        let folder = try #require(try database?.assetStore().folder)
        #expect(FileManager.default.fileExists(atPath: folder.path))
        database = nil
        // The folder goes when the last reference to the database's asset store goes; a
        // work queue of the async API may drop its reference a moment after the call
        // returned, so wait for that, bounded.
        let deadline = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: folder.path), Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        let gone = try #require(asset)
        // README: "A missing file throws `AssetError.missing`".
        await #expect(throws: AssetError.missing(gone)) { try await gone.data() }
    }

    @Test("A corrupted file gives AssetError.corrupted, a missing one AssetError.missing")
    func damagedFiles() async throws {
        let database = InMemoryHistoryDatabase()
        let asset = try await database.storeAsset(Data("original content".utf8))
        let url = try asset.fileURL()
        try Data("0riginal content".utf8).write(to: url) // same size, other bytes
        let damagedHash = try hashOfFile(in: database, url)
        await #expect(throws: AssetError.corrupted(asset, foundHash: damagedHash, foundSize: 16)) {
            try await asset.data()
        }
        var chunksFailed = false
        do {
            for try await _ in asset.chunks(ofSize: 4) {}
        } catch AssetError.corrupted {
            chunksFailed = true
        }
        #expect(chunksFailed)
        try FileManager.default.removeItem(at: url)
        await #expect(throws: AssetError.missing(asset)) { try await asset.data() }
        #expect(throws: AssetError.missing(asset)) { try asset.fileURL() }
    }

    @Test("A stored value that is not a hash does not decode as an asset")
    func refusesBadHashes() throws {
        #expect(throws: AssetError.invalidHash("../../etc/passwd")) { try Asset(hash: "../../etc/passwd", size: 1) }
        let json = Data(#"{"assetSHA256":"../x","assetSize":1}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Asset.self, from: json) }
    }

    @Test("Garbage collection deletes unreferenced files; history keeps files until pruned")
    func garbageCollection() async throws {
        let database = InMemoryHistoryDatabase()
        let song = AssetSong.create(in: database, id: 1, title: "s")
        let old = try await database.storeAsset(Data("old, with history".utf8))
        let nested = try await database.storeAsset(Data("nested in an array".utf8))
        let orphan = try await database.storeAsset(Data("an orphan".utf8))
        song.audio = old
        song.covers = [nested]
        song.audio = try await database.storeAsset(Data("the new take".utf8))
        #expect(try await database.collectAssetGarbage() == 1) // the orphan only
        #expect(try database.assetStore().contains(old)) // history references it
        #expect(try database.assetStore().contains(nested)) // in an array
        #expect(!(try database.assetStore().contains(orphan)))
        try database.prune(before: Date().addingTimeInterval(60))
        #expect(try await database.collectAssetGarbage() == 1)
        #expect(!(try database.assetStore().contains(old)))
        #expect(try await song.audio?.data() == Data("the new take".utf8))
    }

    @Test("Without history, only current values reference assets")
    func garbageWithoutHistory() async throws {
        let database = InMemoryDatabase()
        let song = AssetSong.create(in: database, id: 1, title: "s")
        let old = try await database.storeAsset(Data("old, without history".utf8))
        song.audio = old
        song.audio = nil
        #expect(try await database.collectAssetGarbage() == 1)
        await #expect(throws: AssetError.missing(old)) { try await old.data() }
    }

    @Test("Writing from chunks: a failing sequence stores nothing")
    func chunkWrites() async throws {
        let database = InMemoryDatabase()
        let chunks = AsyncStream<Data> { continuation in
            for index in 0 ..< 10 { continuation.yield(Data(repeating: UInt8(index), count: 1000)) }
            continuation.finish()
        }
        let asset = try await database.storeAsset(chunks: chunks)
        #expect(asset.size == 10_000)
        var collected = Data()
        for try await chunk in asset.chunks(ofSize: 3000) {
            #expect(chunk.count <= 3000)
            collected.append(chunk)
        }
        #expect(collected.count == 10_000 && collected.last == 9)

        struct DownloadFailed: Error {}
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("part".utf8))
            continuation.finish(throwing: DownloadFailed())
        }
        await #expect(throws: DownloadFailed.self) { try await database.storeAsset(chunks: failing) }
        let files = try FileManager.default.contentsOfDirectory(atPath: database.assetStore().folder.path)
        #expect(files == [asset.hash]) // no temporary file left, nothing named
    }

    private func hashOfFile(in database: InMemoryHistoryDatabase, _ url: URL) throws -> String {
        // The damaged content stored as an asset of its own has the hash the error reports.
        try database.assetStore().store(Data(contentsOf: url)).hash
    }
}
