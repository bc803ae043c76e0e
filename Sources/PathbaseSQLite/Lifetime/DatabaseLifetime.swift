import Foundation
import Pathbase

/// What an ``SQLiteDatabase`` owns besides its connection: the temporary asset folder of an
/// in-memory database (removed when the database is released) and the files of a
/// temporary database (removed when it is closed or released).
final class DatabaseLifetime: Sendable {

    /// Where an in-memory database keeps its assets; no folder exists until an asset is
    /// stored.
    let temporaryAssets = AssetStore.temporary()

    private let filesRemovedOnClose = Locked<[URL]>([])

    /// Removes `file` when the database closes.
    func removeOnClose(_ file: URL) {
        filesRemovedOnClose.withLock { $0.append(file) }
    }

    /// Called once the connection is closed.
    func databaseClosed() {
        let files = filesRemovedOnClose.withLock { files in
            defer { files = [] }
            return files
        }
        for file in files where FileManager.default.fileExists(atPath: file.path) {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                // Nothing to hand the error to on close: temporary files are in the system's
                // temporary folder, which it cleans too.
                continue
            }
        }
    }
}
