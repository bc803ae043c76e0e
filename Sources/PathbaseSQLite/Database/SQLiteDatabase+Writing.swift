import GRDBSQLite
import Pathbase

extension SQLiteDatabase {

    /// Stores a value at a path, stamped with the database's clock.
    ///
    /// ```swift
    /// database.set("Alice", for: Path(model: 1, instance: 7, property: 1))
    /// ```
    ///
    /// Outside a batch, the write is its own transaction. A failure stores nothing and goes
    /// to ``Options/errorHandler``; inside a batch it makes the batch throw. Use
    /// ``store(_:for:timestamp:)`` to get it thrown here.
    // Specialized for the common property types, as `get` is: called through `any Database`,
    // the generic body casts and looks up metadata on every write.
    @_specialize(where Value == Int)
    @_specialize(where Value == String)
    @_specialize(where Value == Double)
    @_specialize(where Value == Bool)
    @_specialize(where Value == InstanceStatus)
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        locked { () -> Void in
            do throws(SQLiteDatabaseError) {
                // Stamped once the file's write lock is taken (see FileClock).
                try write(value, for: path, timestamp: nil)
            } catch {
                failed(error)
            }
        }
    }

    /// Stores a value with an explicit timestamp (a synced record, for example).
    ///
    /// ```swift
    /// database.set("Alice", for: path, timestamp: record.timestamp)
    /// ```
    ///
    /// The record is kept in history; it becomes the current value only if its timestamp
    /// is newer than the current one. The same path and timestamp again changes nothing.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        locked { () -> Void in
            do throws(SQLiteDatabaseError) {
                try write(value, for: path, timestamp: timestamp)
            } catch {
                failed(error)
            }
        }
    }

    /// A non-throwing write failed: inside a batch the batch will throw it, outside it is
    /// reported.
    private func failed(_ error: SQLiteDatabaseError) {
        if transaction.inBatch {
            transaction.failed(error)
        } else {
            report(error)
        }
    }

    /// Writes one record: into its instance's body if newer, otherwise (with history) into
    /// `superseded_records`. Inside a batch, it waits in ``PendingWrites`` to be written with
    /// others; outside, ``PendingWrites`` writes it now. Called while holding the lock.
    /// Without a timestamp, the clock stamps it once the file's write lock is held (inside a
    /// batch, it has been since the batch began), after the file's newest record.
    func write<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp?) throws(SQLiteDatabaseError) {
        let handle = try writeHandle()
        if transaction.inBatch, let failure = transaction.failure {
            // The batch already failed and will roll back: write nothing more.
            throw failure
        }
        let encoded: (tag: Int64, value: StoredValue)
        do throws(SQLiteDatabaseError) {
            encoded = try codec.encode(value, for: path)
        } catch {
            if case .valueEncoding = error {} else if transaction.inBatch { transaction.failed(error) }
            throw error
        }
        if transaction.inBatch {
            let row = PendingWrites.Row(path: path, timestamp: timestamp ?? clock.now(), tag: encoded.tag, value: encoded.value)
            pendingWrites.append(row)
            if !retention.keepsEverything { retainedPaths.insert(path) }
            if pendingWrites.isFull { try writePending(handle) }
        } else {
            // Several statements (the body, the record's time, a status's or list's
            // mirrors): one transaction, so that they agree.
            try execute(statements.begin)
            do throws(SQLiteDatabaseError) {
                if timestamp == nil { try fileClock.catchUp(clock, handle: handle) }
                let row = PendingWrites.Row(path: path, timestamp: timestamp ?? clock.now(), tag: encoded.tag, value: encoded.value)
                pendingWrites.append(row)
                try pendingWrites.write(keepsHistory: keepsHistory, endingRun: true, connection: handle, becameCurrent: becameCurrent)
                try applyRetention(to: CollectionOfOne(path), handle: handle)
                try execute(statements.commit)
            } catch {
                rollback()
                throw error
            }
        }
    }

    /// A status or reference list row is its path's current value now: a status updates
    /// the active instances, a reference list its `list_members`.
    func becameCurrent(_ row: PendingWrites.Row) throws(SQLiteDatabaseError) {
        if row.path.property == PropertyKey.instanceId {
            activeInstances.statusWritten(row.path, tag: row.tag, value: row.value)
            instanceCounts.statusWritten()
        } else if row.tag == ValueTag.integerArray.rawValue, case .blob(let bytes) = row.value {
            try replaceListMembers(of: row.path, with: ListMembers.decode(bytes))
        }
    }

    /// Keeps `list_members` equal to the elements of the path's current list.
    private func replaceListMembers(of path: Path, with members: [Int64]) throws(SQLiteDatabaseError) {
        statements.deleteListMembers.bindPath(path)
        try execute(statements.deleteListMembers)
        for member in members {
            statements.insertListMember.bindPath(path)
            statements.insertListMember.bind(member, at: 4)
            try execute(statements.insertListMember)
        }
    }

    // MARK: Throwing variants

    /// Stores a value like `set`, but throws instead of reporting a failure.
    ///
    /// ```swift
    /// try database.store(report, for: path)
    /// ```
    ///
    /// `timestamp` defaults to the clock's next reading. Inside a batch, an SQLite failure
    /// also makes the batch throw; a value that fails to encode does not (nothing was
    /// written, and the error is yours to handle).
    public func store<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp? = nil) throws(SQLiteDatabaseError) {
        try locked { () throws(SQLiteDatabaseError) in
            try write(value, for: path, timestamp: timestamp)
        }
    }

    /// Reads a value like `get(_:at:)`, but throws a failure of SQLite instead of
    /// reporting it.
    ///
    /// ```swift
    /// let title: Timestamped<String>? = try database.fetch(path)
    /// ```
    ///
    /// Returns `nil` if nothing is stored or the stored value is not a `Value`.
    public func fetch<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp? = nil) throws(SQLiteDatabaseError) -> Timestamped<Value>? {
        try locked { () throws(SQLiteDatabaseError) in
            try read(path, at: timestamp, as: Value.self)
        }
    }
}

extension SQLiteDatabase: WriteGroupStorage {

    /// Whether a batch is under way; another thread's batch is waited for first.
    package var isInBatch: Bool {
        locked { transaction.inBatch }
    }

    /// A failed atomic update (a merged property's read-modify-write, run as a batch) goes
    /// to ``Options/errorHandler`` as a failed `set` does; inside a batch, that batch throws it.
    package func reportWriteFailure(_ error: any Error) {
        locked {
            if !transaction.inBatch, let error = error as? SQLiteDatabaseError { report(error) }
        }
    }
}
