import Foundation
import Pathbase

/// A ``SyncServerStore`` in memory: for tests and for servers whose data may be lost.
///
/// ```swift
/// let server = SyncServer(store: InMemorySyncServerStore())
/// ```
///
/// Safe to use from any thread.
public final class InMemorySyncServerStore: CommandQueueStore, AssetContentStore, CompactingStore, Sendable {

    private struct Account {
        var name: String
        var tokenHash: [UInt8]
        /// In sequence order; compaction leaves gaps in the numbers.
        var log: [SequencedRecord] = []
        var lastSequence: Int64 = 0
        var sequenceOfKey: [SyncRecord.Key: Int64] = [:]
        var horizon: Int64 = 0
        /// The record kept for each path and writer up to the horizon.
        var keptUpToHorizon: [PathWriter: SequencedRecord] = [:]

        /// The position in the log of the first record numbered after `sequence`.
        func position(after sequence: Int64) -> Int {
            var low = 0
            var high = log.count
            while low < high {
                let middle = (low + high) / 2
                if log[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
            }
            return low
        }
        var commands: [(command: RelayedCommand, response: Data?)] = []
        var assets: [String: (size: Int64, content: Data, isComplete: Bool)] = [:]
    }

    private let accounts = Locked<[Account]>([])

    /// An empty store.
    public init() {}

    public func addAccount(name: String, tokenHash: [UInt8]) throws -> AccountID {
        try accounts.withLock { accounts in
            guard !accounts.contains(where: { $0.name == name }) else { throw SyncServerError.accountExists(name) }
            accounts.append(Account(name: name, tokenHash: tokenHash))
            return AccountID(rawValue: Int64(accounts.count))
        }
    }

    public func account(tokenHash: [UInt8]) throws -> AccountID? {
        accounts.withLock { accounts in
            accounts.firstIndex { $0.tokenHash == tokenHash }.map { AccountID(rawValue: Int64($0 + 1)) }
        }
    }

    public func append(_ records: [SyncRecord], to account: AccountID) throws -> [AppendOutcome] {
        try accounts.withLock { accounts in
            let index = try Self.index(of: account, in: accounts)
            var copy = accounts[index]
            let outcomes = records.map { record -> AppendOutcome in
                if let sequence = copy.sequenceOfKey[record.key] {
                    return copy.log[copy.position(after: sequence - 1)].record == record ? .alreadyStored(sequence: sequence) : .conflicting
                }
                copy.lastSequence += 1
                let sequence = copy.lastSequence
                copy.log.append(SequencedRecord(sequence: sequence, record: record))
                copy.sequenceOfKey[record.key] = sequence
                return .appended(sequence: sequence)
            }
            accounts[index] = copy
            return outcomes
        }
    }

    public func records(of account: AccountID, after sequence: Int64, limit: Int) throws -> [SequencedRecord] {
        try accounts.withLock { accounts in
            let stored = accounts[try Self.index(of: account, in: accounts)]
            return Array(stored.log[stored.position(after: sequence)...].prefix(max(0, limit)))
        }
    }

    public func keys(writtenBy writer: UInt32, in account: AccountID, after: Timestamp?, through: Timestamp, limit: Int) throws -> [SyncRecord.Key] {
        try accounts.withLock { accounts in
            let stored = accounts[try Self.index(of: account, in: accounts)]
            let keys = stored.sequenceOfKey.keys.filter { key in
                key.timestamp.replica == writer && key.timestamp <= through && after.map { key.timestamp > $0 } ?? true
            }
            return Array(keys.sorted().prefix(max(0, limit)))
        }
    }

    public func latestSequence(of account: AccountID) throws -> Int64 {
        try accounts.withLock { accounts in accounts[try Self.index(of: account, in: accounts)].lastSequence }
    }

    public func compactionHorizon(of account: AccountID) throws -> Int64 {
        try accounts.withLock { accounts in accounts[try Self.index(of: account, in: accounts)].horizon }
    }

    public func compactStep(of account: AccountID, through end: Int64, batchSize: Int) throws -> CompactionStep {
        try accounts.withLock { accounts in
            let index = try Self.index(of: account, in: accounts)
            var copy = accounts[index]
            let start = copy.horizon
            let (batchEnd, overflow) = start.addingReportingOverflow(Int64(max(1, batchSize)))
            let stepEnd = min(end, copy.lastSequence, overflow ? .max : batchEnd)
            guard stepEnd > start else { return CompactionStep(horizon: start, removed: 0) }
            // Each record of the step meets the record kept for its path and writer so far:
            // the older of the two goes.
            var removed: Set<Int64> = []
            for entry in copy.log[copy.position(after: start)...] where entry.sequence <= stepEnd {
                let writer = PathWriter(entry.record)
                guard let kept = copy.keptUpToHorizon[writer] else {
                    copy.keptUpToHorizon[writer] = entry
                    continue
                }
                let older = kept.record.timestamp < entry.record.timestamp ? kept : entry
                removed.insert(older.sequence)
                copy.sequenceOfKey[older.record.key] = nil
                if older == kept { copy.keptUpToHorizon[writer] = entry }
            }
            if !removed.isEmpty { copy.log.removeAll { removed.contains($0.sequence) } }
            copy.horizon = stepEnd
            accounts[index] = copy
            return CompactionStep(horizon: stepEnd, removed: removed.count)
        }
    }

    public func enqueue(_ request: CommandRelayRequest, in account: AccountID) throws -> Int64 {
        try accounts.withLock { accounts in
            let index = try Self.index(of: account, in: accounts)
            let id = Int64(accounts[index].commands.count + 1)
            accounts[index].commands.append((RelayedCommand(id: id, sender: request.sender, target: request.target, message: request.message), nil))
            return id
        }
    }

    public func waitingCommands(for targets: [UInt32], in account: AccountID, limit: Int) throws -> [RelayedCommand] {
        try accounts.withLock { accounts in
            let targets = Set(targets)
            return accounts[try Self.index(of: account, in: accounts)].commands
                .filter { $0.response == nil && targets.contains($0.command.target) }
                .prefix(max(0, limit)).map(\.command)
        }
    }

    public func answer(_ id: Int64, by replica: UInt32, response: Data, in account: AccountID) throws {
        try accounts.withLock { accounts in
            let index = try Self.index(of: account, in: accounts)
            let position = Int(id) - 1
            guard accounts[index].commands.indices.contains(position), accounts[index].commands[position].command.target == replica else {
                throw SyncServerError.unknownCommand(id)
            }
            if accounts[index].commands[position].response == nil {
                accounts[index].commands[position].response = response
            }
        }
    }

    public func response(to id: Int64, in account: AccountID) throws -> Data? {
        try accounts.withLock { accounts in
            let commands = accounts[try Self.index(of: account, in: accounts)].commands
            let position = Int(id) - 1
            guard commands.indices.contains(position) else { throw SyncServerError.unknownCommand(id) }
            return commands[position].response
        }
    }

    public func accountSummaries() throws -> [AccountSummary] {
        accounts.withLock { accounts in
            accounts.enumerated().map { index, account in
                AccountSummary(
                    id: AccountID(rawValue: Int64(index + 1)), name: account.name, latestSequence: account.lastSequence,
                    recordsStored: Int64(account.log.count))
            }
        }
    }

    public func storedAssets(_ hashes: [String], in account: AccountID) throws -> [String: AssetUploadState] {
        try accounts.withLock { accounts in
            let assets = accounts[try Self.index(of: account, in: accounts)].assets
            var stored: [String: AssetUploadState] = [:]
            for hash in hashes {
                if let asset = assets[hash] {
                    stored[hash] = AssetUploadState(asset: try Asset(hash: hash, size: asset.size), received: Int64(asset.content.count), isComplete: asset.isComplete)
                }
            }
            return stored
        }
    }

    public func appendAssetChunk(_ chunk: Data, to asset: Asset, at offset: Int64, in account: AccountID) throws -> Int64 {
        try accounts.withLock { accounts in
            let index = try Self.index(of: account, in: accounts)
            var stored = accounts[index].assets[asset.hash] ?? (asset.size, Data(), false)
            try AssetChunkRule.check(chunk, of: asset, at: offset, storedSize: stored.size, received: Int64(stored.content.count))
            stored.content.append(chunk)
            accounts[index].assets[asset.hash] = stored
            return Int64(stored.content.count)
        }
    }

    public func assetChunk(_ hash: String, from offset: Int64, maxCount: Int, in account: AccountID) throws -> Data {
        try accounts.withLock { accounts in
            guard let content = accounts[try Self.index(of: account, in: accounts)].assets[hash]?.content, offset >= 0, offset < Int64(content.count) else { return Data() }
            let start = content.startIndex + Int(offset)
            return Data(content[start ..< start + min(max(0, maxCount), content.count - Int(offset))])
        }
    }

    public func completeAsset(_ asset: Asset, in account: AccountID) throws {
        try accounts.withLock { accounts in
            let index = try Self.index(of: account, in: accounts)
            accounts[index].assets[asset.hash]?.isComplete = true
        }
    }

    public func removeIncompleteAsset(_ hash: String, in account: AccountID) throws {
        try accounts.withLock { accounts in
            let index = try Self.index(of: account, in: accounts)
            if accounts[index].assets[hash]?.isComplete == false { accounts[index].assets[hash] = nil }
        }
    }

    private static func index(of account: AccountID, in accounts: [Account]) throws -> Int {
        let index = Int(account.rawValue) - 1
        guard accounts.indices.contains(index) else { throw SyncServerError.unknownAccount(account) }
        return index
    }
}

/// A path and the replica that wrote a record of it (its timestamp's replica): compaction
/// keeps the newest record of each.
private struct PathWriter: Hashable {
    var path: Path
    var replica: UInt32

    init(_ record: SyncRecord) {
        path = record.path
        replica = record.timestamp.replica
    }
}
