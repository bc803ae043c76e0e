import Foundation
import GRDBSQLite
import Pathbase

/// A database in an SQLite file (or in memory) that keeps every write as a timestamped
/// record: the embedded default for apps.
///
/// ```swift
/// import Pathbase
/// import PathbaseSQLite
///
/// let database = try SQLiteDatabase(path: "notes.sqlite")
/// let note = Note.create(in: database, id: 1, title: "Groceries")
/// try database.batch {
///     note.title = "Shopping"
///     note.done = true
/// }
/// ```
///
/// It is a `HistoryDatabase` with the semantics of `InMemoryHistoryDatabase`:
/// the newest timestamp wins for the current value, an older timestamped write is kept in
/// history only, and writing the same record again changes nothing. `get(_:at:)`,
/// `all(model:at:where:)` (the instances as they were at that time), `records(after:limit:)`
/// and `records(at:)` read the history. With ``Options/keepsHistory`` `false` only
/// current values are kept.
///
/// **Files.** A file is opened in WAL mode with `synchronous = NORMAL`: every commit is
/// atomic and survives a crash of the process. Opening a file that is not a Pathbase
/// database, is damaged or was written by a newer version throws an
/// ``SQLiteDatabaseError`` and leaves the file unchanged. An SQLite database without any
/// table is adopted; one with other tables is rejected. Several processes may use one file.
///
/// **Writes.** Each `set` outside a batch is its own transaction. ``batch(_:)`` runs many
/// writes as one transaction, all or nothing, and is far faster per write.
///
/// **Values.** Integers, floating point numbers, `Bool`, `String`, `Data`, `Date`,
/// `InstanceStatus` and `[Int]` are stored natively, so SQL can filter and sort
/// them; other `Codable` values as JSON, tagged with their Swift type name. A value reads
/// back only as the type that wrote it; as another type it reads as `nil` and stays stored.
///
/// **Errors.** Opening, ``batch(_:)``, ``store(_:for:timestamp:)`` and ``fetch(_:at:)``
/// throw. The `Database` protocol's methods can't: they report failures to
/// ``Options/errorHandler`` (by default printed to standard error) and return `nil` or
/// nothing; inside a batch, a failed write makes the batch roll back and throw. Errors are
/// ``SQLiteDatabaseError``s whose `localizedDescription` says what happened ("The disk is
/// full …") and which keep SQLite's result code.
///
/// **Transactions and memory.** What the database keeps in memory about rows of the file
/// (the ids of `Codable` value types, the active instances of queried models) follows
/// every rollback — of a batch, of a nested batch's savepoint, of a failed single write —
/// through one owner of the transaction state, so it never points at rows that are gone.
///
/// **Threads.** Safe to use from any thread: calls are serialized by a lock, which a batch
/// holds until it ends, so its body can use the database and other threads wait.
public final class SQLiteDatabase: HistoryDatabase, BatchDatabase, @unchecked Sendable {
    // @unchecked: its mutable properties and the caches it holds are touched only while holding `lock`.

    /// `false`: a read of nothing stored is `nil`, whatever the type.
    public var _$conflatesStoredNil: Bool { false }

    /// The clock that stamps this database's writes.
    public let clock: HybridLogicalClock

    /// The file's path, or `nil` for an in-memory database.
    public let path: String?
    /// What goes with this database: its temporary asset folder, files removed on close.
    let lifetime = DatabaseLifetime()

    /// Whether every record is kept, or only current values: the file's setting, fixed when
    /// it was created (see ``Options/keepsHistory``).
    public let keepsHistory: Bool

    /// Catches two model types that share a model id in this database.
    package let modelTypes = ModelRegistry(conflicts: .stop)

    /// Whether the first create of each `@Model` type records its description in the file's
    /// catalog (`ModelDescription`): a file opened for writing does, for the tools
    /// that read it; an in-memory database, which no tool reads, does not.
    package let recordsModelDescriptions: Bool

    let errorHandler: @Sendable (SQLiteDatabaseError) -> Void
    let lock = RecursiveLock()

    // Touched only while holding `lock`, so without dynamic exclusivity checks (every read
    // passes here: the checks cost more than a listing's lookup of a value).
    @exclusivity(unchecked) private var connection: Connection?
    /// The open connection's handle (`nil` once closed): what every call uses, read without
    /// the retain and release of the `Connection` object.
    @exclusivity(unchecked) private var handle: OpaquePointer?
    @exclusivity(unchecked) var statements: Statements
    @exclusivity(unchecked) var codec: ValueCodec
    let queryStatements = QueryStatementCache()
    let activeInstances = ActiveInstances()
    /// The counts of ``modelSummaries()``, kept until the file changes.
    let instanceCounts = InstanceCounts()
    /// The sorted orders of a read-only connection's sorted pages, kept until the file changes.
    let sortedOrders = SortedOrders()
    /// The properties of models listed in the running transaction, one scan each.
    let listingColumns = ListingColumns()
    /// The reader of kept values handed to a collection decoding a struct (guarded by the
    /// lock; see ``keptValues(of:instance:)``).
    var keptEntries: KeptEntries?
    let valueIndexes = ValueIndexes()
    let pendingWrites: PendingWrites
    /// Batch nesting, the batch's first failure, and the caches a rollback must reset.
    let transaction = TransactionState()
    /// Moves the clock past what other connections to the file committed (see ``FileClock``).
    let fileClock = FileClock()
    /// How much superseded history the file keeps (``Options/retention``).
    let retention: HistoryRetention
    /// The paths the running batch wrote, whose history ``retention`` trims before it commits.
    @exclusivity(unchecked) var retainedPaths: Set<Pathbase.Path> = []
    /// The statement that trims one path's history to ``retention``, prepared at its first use.
    @exclusivity(unchecked) var retentionStatement: Statement?
    /// When this connection last trimmed the paths whose records aged out (``retention``'s age).
    @exclusivity(unchecked) var retentionSweptAt: Date?

    /// Opens (or creates) a database file, in WAL mode.
    ///
    /// ```swift
    /// let database = try SQLiteDatabase(path: "/path/to/app.sqlite")
    /// ```
    ///
    /// A missing file is created (unless ``Options/readOnly``). An existing file keeps its
    /// ``Options/keepsHistory`` setting, which the default options adopt. Throws
    /// ``SQLiteDatabaseError`` without touching the file if it is not an SQLite database, is
    /// damaged, belongs to another application, was written by a newer Pathbase, or was
    /// created with another ``Options/keepsHistory`` setting than one asked for explicitly.
    public convenience init(path: String, options: Options = Options()) throws(SQLiteDatabaseError) {
        try self.init(location: path, options: options)
    }

    /// Creates an empty database in memory.
    ///
    /// ```swift
    /// let database = try SQLiteDatabase()
    /// ```
    public convenience init(options: Options = Options()) throws(SQLiteDatabaseError) {
        try self.init(location: nil, options: options)
    }

    private init(location: String?, options: Options) throws(SQLiteDatabaseError) {
        let connection = try Connection(path: location, options: options)
        pendingWrites = PendingWrites(listing: listingColumns)
        do {
            statements = try Statements(connection: connection.handle)
            codec = try ValueCodec(connection: connection.handle)
        } catch {
            // The caller gets the error that stopped the opening; a failure to close the
            // half-opened connection as well would only hide it.
            try? connection.close()
            throw error
        }
        self.connection = connection
        self.handle = connection.handle
        self.path = location
        self.recordsModelDescriptions = location != nil && !options.readOnly
        self.keepsHistory = connection.keepsHistory
        self.clock = options.clock
        self.errorHandler = options.errorHandler
        self.retention = options.retention
        transaction.register(codec)
        transaction.register(activeInstances)
        transaction.register(instanceCounts)
        transaction.register(listingColumns)
        transaction.register(pendingWrites)
        transaction.register(valueIndexes)
        if let newest = connection.newestTimestamp {
            clock.receive(newest)
        }
        // The file's one replica identity, which a default clock adopts.
        try establishReplicaIdentity(readOnly: options.readOnly)
    }

    deinit {
        closeConnection()
    }

    /// Closes the database; later calls fail with ``SQLiteDatabaseError/closed``.
    ///
    /// ```swift
    /// database.close()
    /// ```
    ///
    /// After it, the throwing operations throw ``SQLiteDatabaseError/closed``; the
    /// non-throwing `Database` methods hand it to ``Options/errorHandler`` and read `nil` or
    /// nothing, and their writes store nothing.
    ///
    /// Optional: a database closes when it is released. Calling it again does nothing.
    /// Called inside a batch, it reports an error and does nothing. If SQLite can't close
    /// the file, the error goes to ``Options/errorHandler``.
    public func close() {
        locked {
            guard !transaction.inBatch else {
                errorHandler(.sqlite(code: SQLITE_MISUSE, message: "close() inside a batch is ignored"))
                return
            }
            closeConnection()
        }
    }

    private func closeConnection() {
        guard let connection else { return }
        statements.finalize()
        queryStatements.finalize()
        activeInstances.finalize()
        instanceCounts.finalize()
        sortedOrders.finalize()
        listingColumns.finalize()
        fileClock.finalize()
        pendingWrites.finalize()
        codec.finalize()
        retentionStatement?.finalize()
        retentionStatement = nil
        do throws(SQLiteDatabaseError) {
            try connection.close()
        } catch {
            errorHandler(error)
        }
        self.connection = nil
        self.handle = nil
        lifetime.databaseClosed()
    }

    /// Runs `body` holding ``lock`` (taken again freely by the thread holding it). Every
    /// operation goes through here: inlined in this module, where `RecursiveLock.withLock`'s
    /// generic closure is not inlined across modules and cost a third of a listed
    /// property's read.
    @inline(__always)
    func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let acquired = lock.acquire()
        defer { lock.release(acquired) }
        return try body()
    }

    // MARK: Helpers for the operations (called while holding the lock)

    /// The connection's handle, for reading: the batch's pending writes are written first,
    /// so that every read sees them.
    @inline(__always)
    func openHandle() throws(SQLiteDatabaseError) -> OpaquePointer {
        guard let handle else { throw .closed }
        if !pendingWrites.isEmpty { try writePending(handle) }
        return handle
    }

    /// The connection's handle, for reading one path: the batch's pending writes are
    /// written first if one of them is of that path (the others can wait for more).
    @inline(__always)
    func openHandle(reading path: Path) throws(SQLiteDatabaseError) -> OpaquePointer {
        guard let handle else { throw .closed }
        if !pendingWrites.isEmpty, pendingWrites.contains(path) { try writePending(handle) }
        return handle
    }

    /// The connection's handle, for writing: pending writes stay pending.
    @inline(__always)
    func writeHandle() throws(SQLiteDatabaseError) -> OpaquePointer {
        guard let handle else { throw .closed }
        try checkTransactionKept(handle)
        return handle
    }

    /// The connection's handle as it is (`nil` once closed): for checks that write nothing.
    var currentHandle: OpaquePointer? { handle }

    /// Writes the batch's pending writes, and with `endingRun` the run of records they
    /// add to (``PendingWrites/write(keepsHistory:endingRun:connection:becameCurrent:)``);
    /// a failure fails the batch.
    func writePending(_ handle: OpaquePointer, endingRun: Bool = false) throws(SQLiteDatabaseError) {
        do throws(SQLiteDatabaseError) {
            try checkTransactionKept(handle)
            try pendingWrites.write(keepsHistory: keepsHistory, endingRun: endingRun, connection: handle, becameCurrent: becameCurrent)
        } catch {
            transaction.failed(error)
            throw error
        }
    }

    /// The error of the last failed call, with SQLite's message.
    func error(_ code: Int32) -> SQLiteDatabaseError {
        guard let connection else { return .closed }
        return .sqlite(code: code, message: String(cString: sqlite3_errmsg(connection.handle)))
    }

    /// Runs a statement that returns no rows.
    @inline(__always)
    func execute(_ statement: Statement) throws(SQLiteDatabaseError) {
        let code = statement.step()
        statement.reset()
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// Ends the running transaction, if SQLite has not already, and forgets what it added.
    func rollback() {
        guard let connection else { return }
        if sqlite3_get_autocommit(connection.handle) == 0 {
            _ = statements.rollback.step()
            statements.rollback.reset()
        }
        transaction.rolledBack()
    }
}

extension SQLiteDatabase: ChecksModelTypes {}
