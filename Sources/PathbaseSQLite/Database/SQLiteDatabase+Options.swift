import Foundation
import Pathbase

extension SQLiteDatabase {

    /// How an ``SQLiteDatabase`` stores and reports.
    ///
    /// ```swift
    /// let options = SQLiteDatabase.Options(keepsHistory: false, clock: HybridLogicalClock(replica: 3))
    /// let database = try SQLiteDatabase(path: "cache.sqlite", options: options)
    /// ```
    ///
    /// Every parameter has a default: the file's history setting (history kept in a new
    /// file), read and write, a clock with a random replica id, errors printed to standard
    /// error.
    public struct Options: Sendable {

        /// Whether every record is kept (`true`) or only the current value of each path
        /// (`false`); `nil`, the default, adopts the setting of an existing file and keeps
        /// history in a new one.
        ///
        /// Without history the database is smaller and writes are about twice as fast, and
        /// the history APIs answer as if older records had been pruned:
        /// `get(_:at:)` returns the current value if it was written at or before the date,
        /// otherwise `nil`; `all(model:at:where:)` lists the instances whose current status
        /// was written by then; `records(at:)` returns at most the current record and
        /// `records(after:limit:)` the current records written after the timestamp.
        ///
        /// A file keeps the setting it was created with: opening it with the default adopts
        /// it (see ``SQLiteDatabase/keepsHistory``); only asking explicitly for the other
        /// setting throws ``SQLiteDatabaseError/historyModeMismatch(path:fileKeepsHistory:)``.
        public var keepsHistory: Bool?

        /// Opens an existing file for reading only: nothing, not even the file's header or
        /// journal mode, is ever written. `false` by default.
        ///
        /// A missing or empty file throws ``SQLiteDatabaseError/noDatabase(path:)`` instead of
        /// being created, and a file of an older storage format throws instead of being
        /// upgraded. Writes fail with SQLite's `SQLITE_READONLY` (reported to
        /// ``errorHandler``, or thrown by the throwing variants). `pathbase inspect` and
        /// `pathbase history` open files this way.
        public var readOnly: Bool

        /// The clock that stamps the database's writes. On opening, it is moved past the
        /// newest timestamp in the file, so new writes win even if the wall clock went back.
        public var clock: HybridLogicalClock

        /// How long a write waits for another process that holds the file's write lock,
        /// in seconds, before failing with `SQLITE_BUSY`. 5 by default.
        public var busyTimeout: TimeInterval

        /// The most memory SQLite's page cache of the connection may hold, in KiB; 64 MiB by
        /// default (SQLite's own default is 2 MiB).
        ///
        /// The cache grows only as pages are read. Queries and point reads on a large file
        /// descend the b-trees of the value tables and their indexes; with the default, the
        /// upper levels of those trees stay in memory (measured on a 10^6-instance file: a
        /// filtered, sorted query took 1.6× less time than with 2 MiB). Lower it on devices
        /// short of memory.
        public var cacheSizeInKiB: Int

        /// How much of the file SQLite reads through memory mapping, in MiB; 1024 by
        /// default, 0 to read with `pread` only.
        ///
        /// Values are stored by instance, so a query that visits a few properties of many
        /// instances touches more pages than the page cache holds on a large file. Mapped,
        /// those pages are read from the operating system's file cache without a system call
        /// and a copy each (measured on a 10^6-instance file: a filtered, sorted query took
        /// 1.3× less time). It reserves address space, not memory. SQLite still writes
        /// with `write`, so crash safety is unchanged. Set it to 0 if the file may be
        /// truncated behind the database's back (another program replacing it while open):
        /// reading a mapped page past the new end is a crash (`SIGBUS`), not an error.
        public var memoryMapSizeInMiB: Int

        /// How large the write-ahead log grows before SQLite copies it into the database file
        /// (a checkpoint, which syncs both files), in MiB; 24 by default, 4 being SQLite's own.
        ///
        /// A commit here writes about six pages to the log where a fixed-schema row writes
        /// one (a value goes into its history record, its current value and their indexes),
        /// so with SQLite's default a file checkpoints six times as often per commit; each
        /// checkpoint syncs, which on a small commit costs more than the commit. At 24 MiB a
        /// file checkpoints about once per thousand one-object commits, as a one-page commit
        /// does at SQLite's default (measured on one-object commits: 15–20% less time per
        /// commit). The log's file keeps its largest size on disk between checkpoints; lower
        /// this on devices short of storage. 0 leaves checkpoints to you.
        public var walSizeInMiB: Int

        /// How far a commit is on disk when it returns: ``Synchronization/normal`` by default.
        ///
        /// Every commit is atomic and the file consistent whichever is chosen; what differs is
        /// what a power cut or an operating-system crash (not a crash of the process) may
        /// take back. See ``Synchronization``.
        public var synchronization: Synchronization

        /// How much superseded history the file keeps by itself:
        /// `HistoryRetention.everything` by default.
        ///
        /// Applied to the paths each transaction writes, before it commits (one indexed
        /// statement per path: a write pays for its own paths only), and with an age, at most
        /// once a minute to the paths whose records aged out since the last sweep (found by
        /// the index on their timestamps). On a file that a `Replica` syncs, no
        /// record its server has not answered goes. Belongs to this connection; the file
        /// stores none. Without history there is nothing to remove.
        public var retention: HistoryRetention

        /// Receives the errors of the non-throwing `Database` methods (`get`, `set`, `all`,
        /// `records`), which can't throw: a failed read returns `nil` or nothing, a failed
        /// write outside a batch stores nothing, and both report here — also every read and
        /// write after ``SQLiteDatabase/close()`` (``SQLiteDatabaseError/closed``), and a write
        /// to a file another process keeps locked longer than ``busyTimeout``. Inside a
        /// ``SQLiteDatabase/batch(_:)``, a failed write makes the batch roll back and throw
        /// instead. Called on the thread of the failing call, with the database locked: don't
        /// use the database from the handler. By default, prints the error to standard error.
        public var errorHandler: @Sendable (SQLiteDatabaseError) -> Void

        /// Creates options.
        public init(
            keepsHistory: Bool? = nil,
            readOnly: Bool = false,
            clock: HybridLogicalClock = HybridLogicalClock(),
            busyTimeout: TimeInterval = 5,
            cacheSizeInKiB: Int = 65_536,
            memoryMapSizeInMiB: Int = 1024,
            walSizeInMiB: Int = 24,
            synchronization: Synchronization = .normal,
            retention: HistoryRetention = .everything,
            errorHandler: @escaping @Sendable (SQLiteDatabaseError) -> Void = Options.printToStandardError
        ) {
            self.keepsHistory = keepsHistory
            self.readOnly = readOnly
            self.clock = clock
            self.busyTimeout = busyTimeout
            self.cacheSizeInKiB = max(0, cacheSizeInKiB)
            self.memoryMapSizeInMiB = max(0, memoryMapSizeInMiB)
            self.walSizeInMiB = max(0, walSizeInMiB)
            self.synchronization = synchronization
            self.retention = retention
            self.errorHandler = errorHandler
        }

        /// The name of a VFS registered with SQLite to open the file through instead of the
        /// default one (the fault-injection tests' VFS); `nil`, the default, for the default
        /// VFS. Opens the file by URI, so SQLite must accept URIs (`SQLITE_USE_URI`).
        package var vfsName: String?

        /// Opens the file with `PRAGMA locking_mode = EXCLUSIVE` (for the tests that run
        /// their workload in that mode too): no other connection can use it while open.
        package var exclusiveLocking = false

        /// The default ``errorHandler``: prints the error to standard error.
        public static let printToStandardError: @Sendable (SQLiteDatabaseError) -> Void = { error in
            StandardError.write("Pathbase SQLiteDatabase: \(error)")
        }
    }
}

extension SQLiteDatabase.Options {

    /// How far a commit is on disk when it returns (SQLite's `PRAGMA synchronous`, the file
    /// being in WAL mode).
    ///
    /// Both keep every commit atomic and the file consistent after any crash; neither loses a
    /// commit that returned if only the process dies (a crash, `kill -9`, the system ending
    /// an app), as the WAL is written before the commit returns.
    public enum Synchronization: Sendable, Hashable {
        /// The WAL is synced to the storage at each checkpoint, not at each commit
        /// (`synchronous = NORMAL`). A power cut or a crash of the operating system may take
        /// back the last commits (those since the last checkpoint at most): the file is then
        /// as it was after an earlier commit, never partly written. Commits cost no `fsync`.
        case normal
        /// The WAL is synced at every commit (`synchronous = FULL`): a commit that returned
        /// survives a power cut too. Each commit waits for the storage (an `fsync`, 0.1 to
        /// several ms).
        case full

        /// The value of `PRAGMA synchronous`.
        var pragmaValue: String {
            switch self {
            case .normal: "NORMAL"
            case .full: "FULL"
            }
        }
    }
}
