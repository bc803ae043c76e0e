import Foundation

/// A database with an asset folder: where the content of its ``Asset`` values is kept.
///
/// ```swift
/// let store = try InMemoryDatabase().assetStore() // a temporary folder
/// ```
///
/// `InMemoryDatabase`, `InMemoryHistoryDatabase` and `SQLiteDatabase` are asset-storing
/// databases; wrappers find their base's folder. Conform a database of your own by
/// returning a store, for example `AssetStore.at(folderBesideYourFile)`.
public protocol AssetStoringDatabase: Database {

    /// The folder of this database's assets.
    var assets: AssetStore { get }
}

extension Database {

    /// The asset folder of this database.
    ///
    /// ```swift
    /// let url = try database.assetStore().fileURL(for: asset)
    /// ```
    ///
    /// Throws ``AssetError/noAssetFolder`` for a database of your own that is not an
    /// ``AssetStoringDatabase``.
    public func assetStore() throws(AssetError) -> AssetStore {
        guard let storing = assetStoringDatabase else { throw .noAssetFolder }
        return storing.assets
    }
}

extension Database where Self: Sendable {

    /// Stores bytes in this database's asset folder, off the task threads; returns the
    /// asset to put in a property.
    ///
    /// ```swift
    /// song.cover = try await database.storeAsset(Data(contentsOf: coverFile))
    /// ```
    ///
    /// Equal contents are stored once. Throws ``AssetError``.
    public func storeAsset(_ data: Data) async throws -> Asset {
        let store = try assetStore()
        return try await BlockingWork.run { try store.store(data) }
    }

    /// Copies a file into this database's asset folder in chunks, off the task threads;
    /// returns its asset. Memory stays bounded whatever the file's size.
    ///
    /// ```swift
    /// song.audio = try await database.storeAsset(contentsOf: recordingURL)
    /// ```
    public func storeAsset(contentsOf file: URL) async throws -> Asset {
        let store = try assetStore()
        return try await BlockingWork.run { try store.store(contentsOf: file) }
    }

    /// Stores content that arrives in chunks (a download, an encoder's output), writing
    /// each chunk as it comes; returns its asset. Memory stays bounded by the chunk size.
    ///
    /// ```swift
    /// let (bytes, _) = try await URLSession.shared.bytes(from: url)
    /// song.audio = try await database.storeAsset(chunks: chunked(bytes))
    /// ```
    ///
    /// If the sequence throws or the task is cancelled, nothing is stored (the temporary
    /// file is removed) and the error is thrown.
    public func storeAsset<Chunks: AsyncSequence>(chunks: Chunks) async throws -> Asset where Chunks.Element == Data {
        let store = try assetStore()
        // One chunk at a time, from one database thread to the next.
        let writer = UncheckedTransfer(try await BlockingWork.run { try store.startWrite() })
        do {
            for try await chunk in chunks {
                try Task.checkCancellation()
                try await BlockingWork.run { try writer.value.append(chunk) }
            }
            return try await BlockingWork.run { try writer.value.finish() }
        } catch {
            writer.value.discard()
            throw error
        }
    }

    /// Deletes the asset files no record of this database references any more; returns how
    /// many were deleted.
    ///
    /// ```swift
    /// song.audio = nil
    /// let deleted = try await database.collectAssetGarbage() // the old audio's file goes
    /// ```
    ///
    /// On a database with history, every record counts, so a view at an old date still
    /// opens its assets; pruning the history releases them. Assets nested in other
    /// `Codable` values (arrays, structs) count too. Do not store new assets in this folder
    /// from another process while it runs: an asset stored but not yet written to a record
    /// could be deleted. Throws ``AssetError``.
    public func collectAssetGarbage() async throws -> Int {
        guard let storing = assetStoringDatabase else { throw AssetError.noAssetFolder }
        let store = storing.assets
        let holder = UncheckedTransfer(storing) // the databases that store assets are Sendable
        return try await BlockingWork.run {
            let referenced = try AssetReferences.assets(in: holder.value)
            return try store.removeFiles(notIn: Set(referenced.map(\.hash)))
        }
    }
}
