import Foundation
import GRDB
import Pathbase

/// Asset content in the store's SQLite file: table `assets` (one row per account and hash:
/// size, bytes received, complete) and `asset_chunks` (the content, one row per uploaded
/// chunk, keyed by its first byte).
///
/// ```swift
/// let received = try store.appendAssetChunk(chunk, to: asset, at: 0, in: account)
/// ```
///
/// In the file rather than in a folder beside it: each append checks the offset, stores the
/// chunk and moves the count in one transaction, also when several server processes share
/// the file; the server's data stays one file to back up; and the layout is the PostgreSQL
/// store's. Reads and writes touch one chunk's rows, never a whole asset.
extension SQLiteSyncServerStore {

    public func storedAssets(_ hashes: [String], in account: AccountID) throws -> [String: AssetUploadState] {
        try run {
            try queue.read { db in
                let find = try db.cachedStatement(sql: "SELECT size, received, complete FROM assets WHERE account = ? AND hash = ?")
                var stored: [String: AssetUploadState] = [:]
                for hash in hashes {
                    if let row = try Row.fetchOne(find, arguments: [account.rawValue, hash]) {
                        stored[hash] = AssetUploadState(asset: try Asset(hash: hash, size: row["size"]), received: row["received"], isComplete: row["complete"])
                    }
                }
                return stored
            }
        }
    }

    public func appendAssetChunk(_ chunk: Data, to asset: Asset, at offset: Int64, in account: AccountID) throws -> Int64 {
        try run {
            var received: Int64 = 0
            try queue.inTransaction(.immediate) { db in
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE id = ?", arguments: [account.rawValue]) != nil else {
                    throw SyncServerError.unknownAccount(account)
                }
                try db.execute(sql: "INSERT OR IGNORE INTO assets (account, hash, size) VALUES (?, ?, ?)", arguments: [account.rawValue, asset.hash, asset.size])
                guard let row = try Row.fetchOne(db, sql: "SELECT size, received FROM assets WHERE account = ? AND hash = ?", arguments: [account.rawValue, asset.hash]) else {
                    throw SyncServerError.storageFailed("the asset row vanished")
                }
                let size: Int64 = row["size"]
                received = row["received"]
                try AssetChunkRule.check(chunk, of: asset, at: offset, storedSize: size, received: received)
                if !chunk.isEmpty {
                    try db.execute(sql: "INSERT INTO asset_chunks (account, hash, start, content) VALUES (?, ?, ?, ?)", arguments: [account.rawValue, asset.hash, offset, chunk])
                    received += Int64(chunk.count)
                    try db.execute(sql: "UPDATE assets SET received = ? WHERE account = ? AND hash = ?", arguments: [received, account.rawValue, asset.hash])
                }
                return .commit
            }
            return received
        }
    }

    public func assetChunk(_ hash: String, from offset: Int64, maxCount: Int, in account: AccountID) throws -> Data {
        try run {
            try queue.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT start, content FROM asset_chunks
                        WHERE account = ?1 AND hash = ?2 AND start < ?4
                          AND start >= coalesce((SELECT max(start) FROM asset_chunks WHERE account = ?1 AND hash = ?2 AND start <= ?3), 0)
                        ORDER BY start
                        """, arguments: [account.rawValue, hash, offset, offset.saturatingAdd(Int64(max(0, maxCount)))])
                return StoredAssetPieces.bytes(of: rows.map { (start: $0["start"], content: $0["content"]) }, from: offset, maxCount: maxCount)
            }
        }
    }

    public func completeAsset(_ asset: Asset, in account: AccountID) throws {
        try run {
            try queue.write { db in
                try db.execute(sql: "UPDATE assets SET complete = 1 WHERE account = ? AND hash = ? AND received = size", arguments: [account.rawValue, asset.hash])
            }
        }
    }

    public func removeIncompleteAsset(_ hash: String, in account: AccountID) throws {
        try run {
            try queue.write { db in
                // Its chunks go with it (ON DELETE CASCADE).
                try db.execute(sql: "DELETE FROM assets WHERE account = ? AND hash = ? AND complete = 0", arguments: [account.rawValue, hash])
            }
        }
    }
}
