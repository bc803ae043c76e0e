import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// A struct of a Codable collection with an asset field.
struct AssetDocument: Codable, Identifiable, Sendable {
    var id: Int
    var title: String
    var attachment: Asset?
}

@Suite("Assets: several tasks, and collection fields")
struct AssetConcurrencyTests {

    @Test("Tasks storing equal and different contents at once: one file per content, every read checks")
    func concurrentStores() async throws {
        let database = SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath())
        let tasks = 8, contents = 5
        let stored = try await withThrowingTaskGroup(of: [Asset].self) { group in
            for _ in 0 ..< tasks {
                group.addTask {
                    var assets: [Asset] = []
                    for index in 0 ..< contents {
                        let asset = try await database.storeAsset(Data(repeating: UInt8(index), count: 10_000 + index))
                        #expect(try await asset.data().count == 10_000 + index)
                        assets.append(asset)
                    }
                    return assets
                }
            }
            return try await group.reduce(into: [Asset]()) { $0 += $1 }
        }
        #expect(Set(stored).count == contents)
        let names = try FileManager.default.contentsOfDirectory(atPath: database.assetStore().folder.path)
        #expect(Set(names) == Set(stored.map(\.hash))) // no temporary file left behind
    }

    @Test("An asset in a collection field is stored by reference and keeps its file from garbage collection")
    func collectionField() async throws {
        let database = InMemoryDatabase()
        let documents = database.collection(AssetDocument.self)
        let scan = try await database.storeAsset(Data("a scanned page".utf8))
        try documents.save(AssetDocument(id: 1, title: "contract", attachment: scan))
        #expect(try await database.collectAssetGarbage() == 0)
        let fetched = try #require(try documents.fetch(id: 1)?.attachment)
        #expect(try await fetched.data() == Data("a scanned page".utf8))
        try documents.save(AssetDocument(id: 1, title: "contract", attachment: nil))
        #expect(try await database.collectAssetGarbage() == 1)
        await #expect(throws: AssetError.missing(scan)) { try await scan.data() }
    }
}
