import Foundation
import Pathbase

/// The assets of `people.sqlite` live in `people.sqlite.assets/` beside it; those of an
/// in-memory database in a temporary folder removed with the database.
extension SQLiteDatabase: AssetStoringDatabase {

    /// The folder of this database's assets: `FILE.assets/` beside the file, or a temporary
    /// folder for a database in memory.
    ///
    /// ```swift
    /// let folder = try SQLiteDatabase(path: "people.sqlite").assets.folder // people.sqlite.assets
    /// ```
    public var assets: AssetStore {
        guard let path else { return lifetime.temporaryAssets }
        return AssetStore.at(Self.assetFolder(forFile: path))
    }

    /// The asset folder of the database file at `path`.
    static func assetFolder(forFile path: String) -> URL {
        URL(fileURLWithPath: path + ".assets", isDirectory: true)
    }
}
