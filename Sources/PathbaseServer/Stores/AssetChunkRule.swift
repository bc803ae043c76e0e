import Foundation
import Pathbase

/// What every store checks before it appends a chunk of an asset's content, with the same
/// errors whichever store it is (memory, SQLite, PostgreSQL).
package enum AssetChunkRule {

    /// Throws unless `chunk`, sent at `offset`, continues an asset of which the store holds
    /// `received` bytes of `storedSize` (the size its first chunk declared): a chunk must start
    /// where the stored part ends, declare the same size, and not run past it.
    package static func check(_ chunk: Data, of asset: Asset, at offset: Int64, storedSize: Int64, received: Int64) throws(SyncServerError) {
        guard offset == received else {
            throw SyncServerError.assetOffsetMismatch(hash: asset.hash, offset: offset, received: received)
        }
        let (end, overflow) = received.addingReportingOverflow(Int64(chunk.count))
        guard storedSize == asset.size, !overflow, end <= storedSize else {
            throw SyncServerError.invalidAssetRequest("\(chunk.count) bytes at byte \(offset) do not fit an asset of \(storedSize) bytes")
        }
    }
}
