import Foundation
import Pathbase

/// A ``SyncServerStore`` that also keeps the content of assets, per account, uploaded in
/// chunks: what lets replicas move the files behind their `Asset` values through the
/// server.
///
/// ```swift
/// var received = try await store.appendAssetChunk(first, to: asset, at: 0, in: account)
/// received = try await store.appendAssetChunk(rest, to: asset, at: received, in: account)
/// try await store.completeAsset(asset, in: account)         // after the server checked the hash
/// let bytes = try await store.assetChunk(asset.hash, from: 0, maxCount: 1 << 20, in: account)
/// ```
///
/// An upload appends chunks at the byte where the stored part ends (a chunk elsewhere throws
/// ``SyncServerError/assetOffsetMismatch(hash:offset:received:)`` and stores nothing), so an
/// interrupted upload resumes where it stopped, also through another server process. The
/// ``SyncServer`` checks the whole content against the hash before it calls
/// ``completeAsset(_:in:)``, and removes a mismatch with ``removeIncompleteAsset(_:in:)``.
/// An account never sees another account's assets. Implementations never hold more than
/// a chunk of an asset in memory at once (the in-memory store excepted), and are safe to use
/// from any thread.
public protocol AssetContentStore: SyncServerStore {

    /// What the account holds of each of these assets, by hash: the size its first chunk
    /// declared, the bytes stored, and whether it is complete; assets it holds nothing of
    /// are left out.
    func storedAssets(_ hashes: [String], in account: AccountID) async throws -> [String: AssetUploadState]

    /// Appends a chunk of `asset`'s content at byte `offset`, which must be where the stored
    /// part ends (0 for an asset not stored yet); returns the bytes now stored. Throws
    /// ``SyncServerError/assetOffsetMismatch(hash:offset:received:)`` for another offset,
    /// ``SyncServerError/invalidAssetRequest(_:)`` for bytes past the asset's size or a size
    /// other than the one stored, and ``SyncServerError/unknownAccount(_:)``.
    func appendAssetChunk(_ chunk: Data, to asset: Asset, at offset: Int64, in account: AccountID) async throws -> Int64

    /// Up to `maxCount` stored bytes of the asset with this hash from `offset`, complete or
    /// not; empty at or past the end of what is stored.
    func assetChunk(_ hash: String, from offset: Int64, maxCount: Int, in account: AccountID) async throws -> Data

    /// Marks an asset whose every byte is stored, and checked, as complete: downloadable.
    func completeAsset(_ asset: Asset, in account: AccountID) async throws

    /// Removes what is stored of an incomplete asset (content that did not match its hash);
    /// a complete one stays.
    func removeIncompleteAsset(_ hash: String, in account: AccountID) async throws
}

/// Cuts a range of an asset's content out of the chunks a store keeps it in, for the stores
/// that keep chunks as rows (SQLite, PostgreSQL).
///
/// ```swift
/// let bytes = StoredAssetPieces.bytes(of: [(0, first), (1_048_576, second)], from: 1000, maxCount: 1 << 20)
/// ```
package enum StoredAssetPieces {

    /// Up to `maxCount` bytes from `offset` of the content the pieces hold, each piece given
    /// by its first byte, in order; stops at a gap.
    package static func bytes(of pieces: [(start: Int64, content: Data)], from offset: Int64, maxCount: Int) -> Data {
        var bytes = Data()
        var position = offset
        let end = offset.saturatingAdd(Int64(max(0, maxCount)))
        for piece in pieces {
            let pieceEnd = piece.start + Int64(piece.content.count)
            guard piece.start <= position, position < pieceEnd else { continue }
            let from = piece.content.startIndex + Int(position - piece.start)
            let to = piece.content.startIndex + Int(min(end, pieceEnd) - piece.start)
            bytes.append(piece.content[from ..< to])
            position += Int64(to - from)
            if position >= end { break }
        }
        return bytes
    }
}

extension Int64 {

    /// `self + other`, or `Int64.max` / `Int64.min` where the sum does not fit: for bounds
    /// computed from numbers a client sent, which must never trap.
    package func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
