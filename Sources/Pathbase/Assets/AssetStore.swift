import Foundation

/// A folder of content-addressed asset files: each file is named after the SHA-256 hash of
/// its content.
///
/// ```swift
/// let store = try database.assetStore()          // people.sqlite.assets/ beside the file
/// let asset = try store.store(Data("hello".utf8))
/// print(store.fileURL(for: asset).lastPathComponent == asset.hash) // true
/// ```
///
/// Every database Pathbase provides has one: `SQLiteDatabase` the folder beside its file
/// (`people.sqlite.assets/`), in-memory databases a temporary folder removed with the
/// database. Folders are created on the first write. Writes go to a temporary file that is
/// renamed to its hash once complete and on disk, so a crash never leaves half a file under
/// a valid name; equal contents are stored once. The `async` ``Database/storeAsset(_:)``
/// family runs these off the task threads.
///
/// Safe to use from any thread.
public final class AssetStore: Sendable {

    /// The folder of the asset files.
    public let folder: URL

    /// Whether the folder is removed when the store is released (in-memory databases).
    let isTemporary: Bool

    /// The store of the asset folder at `folder`, shared by every caller in this process.
    ///
    /// ```swift
    /// let store = AssetStore.at(URL(fileURLWithPath: "media.assets"))
    /// ```
    ///
    /// Stores of folders are kept for the process's life, so that ``Asset/data()`` finds
    /// their files.
    public static func at(_ folder: URL) -> AssetStore {
        AssetStores.persistentStore(at: folder.standardizedFileURL) { AssetStore(folder: $0, isTemporary: false) }
    }

    /// A store in a new temporary folder, removed when the store is released.
    package static func temporary() -> AssetStore {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pathbase-assets-\(UUID().uuidString)", isDirectory: true)
        return AssetStore(folder: folder, isTemporary: true)
    }

    private init(folder: URL, isTemporary: Bool) {
        self.folder = folder
        self.isTemporary = isTemporary
    }

    deinit {
        guard isTemporary else { return }
        // Best effort: the folder is in the temporary directory, which the system cleans too.
        try? FileManager.default.removeItem(at: folder)
    }

    /// The file that holds an asset's content in this folder (it may not exist).
    public func fileURL(for asset: Asset) -> URL {
        folder.appendingPathComponent(asset.hash)
    }

    /// Whether this folder has a file for the asset (its content is checked when read).
    public func contains(_ asset: Asset) -> Bool {
        FileManager.default.fileExists(atPath: fileURL(for: asset).path)
    }

    // MARK: Writing

    /// Stores bytes; returns their asset. Blocks on file I/O: from `async` code use
    /// ``Database/storeAsset(_:)``.
    ///
    /// ```swift
    /// let asset = try store.store(Data("hello".utf8))
    /// ```
    public func store(_ data: Data) throws(AssetError) -> Asset {
        try write { writer throws(AssetError) in try writer.append(data) }
    }

    /// Copies a file into the store in chunks of `chunkSize` bytes (memory stays bounded
    /// whatever the file's size); returns its asset.
    ///
    /// ```swift
    /// let movie = try store.store(contentsOf: URL(fileURLWithPath: "movie.mp4"))
    /// ```
    public func store(contentsOf file: URL, chunkSize: Int = 1 << 20) throws(AssetError) -> Asset {
        guard let source = FileHandle(forReadingAtPath: file.path) else {
            throw .fileSystem(path: file.path, reason: "cannot open the file for reading")
        }
        defer { try? source.close() }
        return try write { writer throws(AssetError) in
            while true {
                let chunk: Data?
                do {
                    chunk = try source.read(upToCount: max(chunkSize, 1))
                } catch {
                    throw .fileSystem(path: file.path, reason: error.localizedDescription)
                }
                guard let chunk, !chunk.isEmpty else { return }
                try writer.append(chunk)
            }
        }
    }

    /// Runs `fill` with a writer to a new temporary file and stores the result under its
    /// hash; the one way content enters the folder.
    func write(_ fill: (AssetWriter) throws(AssetError) -> Void) throws(AssetError) -> Asset {
        if isTemporary { AssetStores.register(temporary: self) }
        let writer = try AssetWriter(folder: folder)
        try fill(writer)
        return try writer.finish()
    }

    /// Starts a write whose chunks arrive over time (``Database/storeAsset(chunks:)``).
    func startWrite() throws(AssetError) -> AssetWriter {
        if isTemporary { AssetStores.register(temporary: self) }
        return try AssetWriter(folder: folder)
    }

    // MARK: Reading

    /// The whole content of an asset, checked against its hash.
    ///
    /// ```swift
    /// let bytes = try store.data(of: asset)
    /// ```
    public func data(of asset: Asset) throws(AssetError) -> Data {
        try AssetReader(asset: asset, url: fileURL(for: asset)).readAll()
    }

    // MARK: Garbage

    /// Deletes every asset file and partial transfer whose hash is not in `referenced`, and
    /// temporary files of writes abandoned more than an hour ago; returns how many asset files were deleted.
    func removeFiles(notIn referenced: Set<String>) throws(AssetError) -> Int {
        let files = FileManager.default
        let names: [String]
        do {
            guard files.fileExists(atPath: folder.path) else { return 0 }
            names = try files.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .fileSystem(path: folder.path, reason: error.localizedDescription)
        }
        var removed = 0
        for name in names {
            let url = folder.appendingPathComponent(name)
            do {
                if Asset.isValidHash(name) {
                    guard !referenced.contains(name) else { continue }
                    try files.removeItem(at: url)
                    removed += 1
                } else if name.hasPrefix(AssetStore.partialPrefix) {
                    // A transfer kept for resuming, of an asset nobody references any more.
                    if !referenced.contains(String(name.dropFirst(AssetStore.partialPrefix.count))) {
                        try files.removeItem(at: url)
                    }
                } else if name.hasPrefix(AssetWriter.temporaryPrefix) {
                    // A write in progress has a recent file: leave it.
                    let modified = try files.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
                    if let modified, modified < Date().addingTimeInterval(-3600) {
                        try files.removeItem(at: url)
                    }
                }
            } catch {
                throw .fileSystem(path: url.path, reason: error.localizedDescription)
            }
        }
        return removed
    }
}
