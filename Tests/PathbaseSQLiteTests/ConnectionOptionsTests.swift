import Foundation
import Pathbase
@testable import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: connection options reach SQLite")
struct ConnectionOptionsTests {

    private func pragma(_ name: String, of database: SQLiteDatabase) throws -> Int64? {
        try database.query("PRAGMA \(name)", bind: { _ in }, row: { $0.int64(at: 0) }).first
    }

    @Test("The page cache, the memory map and the WAL take the sizes asked for; 0 turns mapping off")
    func sizesApply() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("options.sqlite")
        let standard = try SQLiteDatabase(path: path)
        #expect(try pragma("cache_size", of: standard) == -65_536)
        #expect(try pragma("mmap_size", of: standard) == 1024 << 20)
        // 24 MiB of 4 KiB pages.
        #expect(try pragma("wal_autocheckpoint", of: standard) == 6144)
        standard.close()

        let small = try SQLiteDatabase(path: path, options: .init(cacheSizeInKiB: 2048, memoryMapSizeInMiB: 0, walSizeInMiB: 4))
        #expect(try pragma("cache_size", of: small) == -2048)
        #expect(try pragma("mmap_size", of: small) == 0)
        #expect(try pragma("wal_autocheckpoint", of: small) == 1024)
        Item.create(in: small, id: 1, title: "still works", count: 1)
        #expect(small.active(id: 1, of: Item.self)?.title == "still works")
        small.close()
    }

    @Test("The synchronization level reaches SQLite: normal by default, full when asked (after GRDB's WAL set-up, which sets normal)")
    func synchronizationApplies() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("sync.sqlite")
        let standard = try SQLiteDatabase(path: path)
        #expect(try pragma("synchronous", of: standard) == 1)
        standard.close()
        let full = try SQLiteDatabase(path: path, options: .init(synchronization: .full))
        #expect(try pragma("synchronous", of: full) == 2)
        Item.create(in: full, id: 1, title: "synced", count: 1)
        #expect(full.active(id: 1, of: Item.self)?.title == "synced")
        full.close()
    }
}
