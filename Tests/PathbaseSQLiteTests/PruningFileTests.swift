import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase pruning: the file shrinks, the state stays")
struct PruningFileTests {

    @Test("Pruning a long history shrinks the file and keeps the state at the date")
    func fileShrinks() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-prune-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let database = try SQLiteDatabase(path: file)
        let path = Path(model: 1, instance: 1, property: 1)
        let text = String(repeating: "history ", count: 64)
        try database.batch {
            for version in 0 ..< 5_000 { database.set("\(version) \(text)", for: path) }
        }
        let cut = database.clock.now()
        database.set("after the cut", for: path)
        let before = database.records(at: path).count
        let sizeBefore = try fileSize(file)

        try database.prune(before: cut)

        #expect(database.records(at: path).count == 2, "the state at the cut and the write after it")
        #expect(before == 5_001)
        #expect(database.historyStart == cut)
        let atCut: Timestamped<String>? = database.get(path, at: cut)
        #expect(atCut?.value == "4999 \(text)")
        let current: String? = database.get(path)
        #expect(current == "after the cut")
        #expect(database.view(at: Timestamp(time: cut.time - 1_000_000)).isBeforeHistoryStart)
        database.close()
        let sizeAfter = try fileSize(file)
        #expect(sizeAfter < sizeBefore / 4, "\(sizeAfter) bytes after pruning, \(sizeBefore) before")

        // The history start survives reopening.
        let reopened = try SQLiteDatabase(path: file)
        #expect(reopened.historyStart == cut)
    }

    private func fileSize(_ file: String) throws -> Int {
        let main = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        let wal = (try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) ?? 0
        return main + wal
    }
}
