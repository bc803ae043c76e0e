import Pathbase

/// Where a sync server keeps its accounts and their records: the one thing a server
/// deployment swaps (memory for tests, an SQLite file, PostgreSQL in `PathbasePostgres`).
///
/// ```swift
/// let store = try SQLiteSyncServerStore(path: "server.sqlite")
/// let account = try await store.addAccount(name: "alice", tokenHash: AccessToken.hash(token))
/// let outcomes = try await store.append(records, to: account)
/// let page = try await store.records(of: account, after: 0, limit: 500)
/// ```
///
/// Each account has its own log of records, numbered 1, 2, 3 … in the order the server
/// stored them (the pull cursor). A record is stored once per account and key (path and
/// timestamp): appending it again returns its number and changes nothing. An account never
/// sees another account's records. Implementations are safe to use from any thread, and
/// ``append(_:to:)`` stores all its records or none. The requirements are `async` so that a
/// store on a network database never blocks a thread while it waits; a store that answers
/// at once implements them as plain functions.
public protocol SyncServerStore: Sendable {

    /// Adds an account with the hash of its bearer token; throws
    /// ``SyncServerError/accountExists(_:)`` if the name is taken.
    func addAccount(name: String, tokenHash: [UInt8]) async throws -> AccountID

    /// The account whose token has this hash, or `nil`.
    func account(tokenHash: [UInt8]) async throws -> AccountID?

    /// Appends records to an account's log, all or none; for each record, in order, its
    /// sequence number and whether it was new.
    func append(_ records: [SyncRecord], to account: AccountID) async throws -> [AppendOutcome]

    /// The records of an account after a sequence number, in sequence order, at most `limit`.
    func records(of account: AccountID, after sequence: Int64, limit: Int) async throws -> [SequencedRecord]

    /// Every account with the sequence number of its latest record and the number of records
    /// held, in account order: what the server's metrics report.
    func accountSummaries() async throws -> [AccountSummary]

    /// The sequence number of an account's latest record, 0 before the first: what a pull
    /// reports as `PullResponse.total` for initial-sync progress. An account's sequence
    /// numbers run 1, 2, 3 …, so it is also the number of records it was given, those that
    /// compaction removed included (``CompactingStore``).
    ///
    /// ```swift
    /// let total = try await store.latestSequence(of: account)
    /// ```
    ///
    /// The default reads ``accountSummaries()``; the package's stores read one row.
    func latestSequence(of account: AccountID) async throws -> Int64

    /// The keys of the account's records stamped with replica id `writer` after `after`
    /// (all when `nil`) and at or before `through`, oldest first, at most `limit`: what tells
    /// ``SyncServer`` whether a push continues from what the server holds of its replica, or
    /// comes from another file writing under the same id (a copy, a restored backup).
    ///
    /// ```swift
    /// let held = try await store.keys(writtenBy: 7, in: account, after: watermark, through: newest, limit: 501)
    /// ```
    ///
    /// The default answers none, which turns that check off; the package's stores read an
    /// index of the records by writer.
    func keys(writtenBy writer: UInt32, in account: AccountID, after: Timestamp?, through: Timestamp, limit: Int) async throws -> [SyncRecord.Key]
}

extension SyncServerStore {

    /// None: a store of your own that does not implement it leaves pushes unchecked for
    /// another file under a replica's id.
    public func keys(writtenBy writer: UInt32, in account: AccountID, after: Timestamp?, through: Timestamp, limit: Int) async throws -> [SyncRecord.Key] {
        []
    }

    /// Reads the account's summary (one per account: a store of many accounts should
    /// implement this with one lookup).
    public func latestSequence(of account: AccountID) async throws -> Int64 {
        try await accountSummaries().first { $0.id == account }?.latestSequence ?? 0
    }
}

/// An account as the server's metrics show it.
///
/// ```swift
/// for account in try store.accountSummaries() { print(account.name, account.latestSequence) }
/// ```
public struct AccountSummary: Hashable, Sendable {

    /// The account.
    public var id: AccountID

    /// Its name.
    public var name: String

    /// The sequence number of its latest record, 0 before the first; since an account's
    /// sequence numbers run 1, 2, 3 …, also the number of records it was given (compaction
    /// may have removed some since).
    public var latestSequence: Int64

    /// The number of its records the store holds now: `latestSequence` less those
    /// compaction removed; `nil` from a store that does not count them (the metrics then
    /// report `latestSequence`).
    public var recordsStored: Int64?

    /// An account's summary.
    public init(id: AccountID, name: String, latestSequence: Int64, recordsStored: Int64? = nil) {
        self.id = id
        self.name = name
        self.latestSequence = latestSequence
        self.recordsStored = recordsStored
    }
}

/// An account of a sync server: the namespace its records live in.
///
/// ```swift
/// let account = try await store.addAccount(name: "alice", tokenHash: hash)
/// print(account) // account 1
/// ```
public struct AccountID: Hashable, Sendable, Codable, CustomStringConvertible {

    /// The store's number for the account.
    public var rawValue: Int64

    /// Wraps a store's number.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    public var description: String { "account \(rawValue)" }
}

/// What appending one record to an account's log did.
///
/// ```swift
/// if case .conflicting = outcome { print("another value has this path and timestamp") }
/// ```
public enum AppendOutcome: Hashable, Sendable {

    /// Stored now, under this sequence number.
    case appended(sequence: Int64)

    /// Already stored, with the same value, under this sequence number.
    case alreadyStored(sequence: Int64)

    /// A different value is stored with the same path and timestamp; nothing changed.
    case conflicting
}

/// A record with the sequence number an account's log gave it.
public struct SequencedRecord: Hashable, Sendable {

    /// The position in the account's log, from 1.
    public var sequence: Int64

    /// The record.
    public var record: SyncRecord

    /// Pairs a record with its sequence number.
    public init(sequence: Int64, record: SyncRecord) {
        self.sequence = sequence
        self.record = record
    }
}
