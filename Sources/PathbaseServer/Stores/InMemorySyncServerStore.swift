import Foundation
import Pathbase

/// A ``SyncServerStore`` in memory: for tests and for servers whose data may be lost.
///
/// ```swift
/// let server = SyncServer(store: InMemorySyncServerStore())
/// ```
///
/// Safe to use from any thread.
public final class InMemorySyncServerStore: SyncServerStore, @unchecked Sendable {
    // @unchecked: `state` is only touched while holding `lock`.

    private struct Account {
        var name: String
        var tokenHash: [UInt8]
        var log: [SyncRecord] = []
        var sequenceOfKey: [SyncRecord.Key: Int64] = [:]
    }

    private let lock = NSLock()
    private var accounts: [Account] = []

    /// An empty store.
    public init() {}

    public func addAccount(name: String, tokenHash: [UInt8]) throws -> AccountID {
        try lock.withLock {
            guard !accounts.contains(where: { $0.name == name }) else { throw SyncServerError.accountExists(name) }
            accounts.append(Account(name: name, tokenHash: tokenHash))
            return AccountID(rawValue: Int64(accounts.count))
        }
    }

    public func account(tokenHash: [UInt8]) throws -> AccountID? {
        lock.withLock {
            accounts.firstIndex { $0.tokenHash == tokenHash }.map { AccountID(rawValue: Int64($0 + 1)) }
        }
    }

    public func append(_ records: [SyncRecord], to account: AccountID) throws -> [AppendOutcome] {
        try lock.withLock {
            let index = try self.index(of: account)
            var copy = accounts[index]
            let outcomes = records.map { record -> AppendOutcome in
                if let sequence = copy.sequenceOfKey[record.key] {
                    return copy.log[Int(sequence - 1)] == record ? .alreadyStored(sequence: sequence) : .conflicting
                }
                copy.log.append(record)
                let sequence = Int64(copy.log.count)
                copy.sequenceOfKey[record.key] = sequence
                return .appended(sequence: sequence)
            }
            accounts[index] = copy
            return outcomes
        }
    }

    public func records(of account: AccountID, after sequence: Int64, limit: Int) throws -> [SequencedRecord] {
        try lock.withLock {
            let log = accounts[try index(of: account)].log
            let start = Int(max(0, min(sequence, Int64(log.count))))
            return log[start...].prefix(max(0, limit)).enumerated().map { offset, record in
                SequencedRecord(sequence: Int64(start + offset + 1), record: record)
            }
        }
    }

    public func accountSummaries() throws -> [AccountSummary] {
        lock.withLock {
            accounts.enumerated().map { index, account in
                AccountSummary(id: AccountID(rawValue: Int64(index + 1)), name: account.name, latestSequence: Int64(account.log.count))
            }
        }
    }

    private func index(of account: AccountID) throws -> Int {
        let index = Int(account.rawValue) - 1
        guard accounts.indices.contains(index) else { throw SyncServerError.unknownAccount(account) }
        return index
    }
}
