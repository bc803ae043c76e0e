import Foundation
import Pathbase
import PathbaseServer
import PostgresNIO

/// Asset content in PostgreSQL: tables `assets` and `asset_chunks` (schema version 3), so
/// that every server process sharing the database serves every upload and download.
///
/// ```swift
/// let received = try await store.appendAssetChunk(chunk, to: asset, at: 0, in: account)
/// ```
///
/// An append is one transaction that locks the asset's row, checks the offset, inserts the
/// chunk as one `bytea` row and moves the count: an upload resumed through another server
/// process goes on where the first stopped, and two uploads of one asset never interleave.
/// A read fetches only the rows of the range asked for.
extension PostgresSyncServerStore {

    public func storedAssets(_ hashes: [String], in account: AccountID) async throws -> [String: AssetUploadState] {
        try await run { [self] in
            let rows = try await client.query(
                """
                SELECT hash, size, received, complete FROM assets
                WHERE account = \(account.rawValue) AND hash = ANY(\(hashes)::text[])
                """, logger: logger)
            var stored: [String: AssetUploadState] = [:]
            for try await (hash, size, received, complete) in rows.decode((String, Int64, Int64, Bool).self) {
                stored[hash] = AssetUploadState(asset: try Asset(hash: hash, size: size), received: received, isComplete: complete)
            }
            return stored
        }
    }

    public func appendAssetChunk(_ chunk: Data, to asset: Asset, at offset: Int64, in account: AccountID) async throws -> Int64 {
        let logger = logger
        return try await run { [self] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    INSERT INTO assets (account, hash, size) SELECT id, \(asset.hash), \(asset.size) FROM accounts WHERE id = \(account.rawValue)
                    ON CONFLICT (account, hash) DO NOTHING
                    """, logger: logger)
                let rows = try await connection.query(
                    """
                    SELECT size, received FROM assets WHERE account = \(account.rawValue) AND hash = \(asset.hash) FOR UPDATE
                    """, logger: logger)
                var found: (size: Int64, received: Int64)?
                for try await row in rows.decode((Int64, Int64).self) { found = row }
                guard let (size, received) = found else { throw SyncServerError.unknownAccount(account) }
                try AssetChunkRule.check(chunk, of: asset, at: offset, storedSize: size, received: received)
                guard !chunk.isEmpty else { return received }
                try await connection.query(
                    """
                    INSERT INTO asset_chunks (account, hash, start, content)
                    VALUES (\(account.rawValue), \(asset.hash), \(offset), \(ByteBuffer(bytes: chunk)))
                    """, logger: logger)
                let now = received + Int64(chunk.count)
                try await connection.query(
                    """
                    UPDATE assets SET received = \(now) WHERE account = \(account.rawValue) AND hash = \(asset.hash)
                    """, logger: logger)
                return now
            }
        }
    }

    public func assetChunk(_ hash: String, from offset: Int64, maxCount: Int, in account: AccountID) async throws -> Data {
        try await run { [self] in
            let end = offset.saturatingAdd(Int64(max(0, maxCount)))
            let rows = try await client.query(
                """
                SELECT start, content FROM asset_chunks
                WHERE account = \(account.rawValue) AND hash = \(hash) AND start < \(end)
                  AND start >= coalesce((SELECT max(start) FROM asset_chunks
                                         WHERE account = \(account.rawValue) AND hash = \(hash) AND start <= \(offset)), 0)
                ORDER BY start
                """, logger: logger)
            var pieces: [(start: Int64, content: Data)] = []
            for try await (start, content) in rows.decode((Int64, Data).self) {
                pieces.append((start, content))
            }
            return StoredAssetPieces.bytes(of: pieces, from: offset, maxCount: maxCount)
        }
    }

    public func completeAsset(_ asset: Asset, in account: AccountID) async throws {
        try await run { [self] in
            _ = try await client.query(
                """
                UPDATE assets SET complete = true
                WHERE account = \(account.rawValue) AND hash = \(asset.hash) AND received = size
                """, logger: logger)
        }
    }

    public func removeIncompleteAsset(_ hash: String, in account: AccountID) async throws {
        try await run { [self] in
            // Its chunks go with it (ON DELETE CASCADE).
            _ = try await client.query(
                """
                DELETE FROM assets WHERE account = \(account.rawValue) AND hash = \(hash) AND NOT complete
                """, logger: logger)
        }
    }
}
