import Foundation
import Pathbase
import PathbaseServer
import Testing

@Suite("SyncServerStore: per-account logs, idempotent appends, pages")
struct SyncServerStoreTests {

    private func record(_ instance: Int, _ value: String, time: Int64 = 1) throws -> SyncRecord {
        try SyncRecord(Record(path: Path(model: 5, instance: instance, property: 1), timestamp: Timestamp(time: time, counter: 0, replica: 3), value: value))
    }

    @Test("appending numbers records from 1; appending again returns the same numbers and stores nothing", arguments: StoreKind.allCases)
    func idempotentAppend(kind: StoreKind) throws {
        let store = try kind.make()
        let account = try store.addAccount(name: "a", tokenHash: [1])
        let records = [try record(1, "x"), try record(2, "y")]
        #expect(try store.append(records, to: account) == [.appended(sequence: 1), .appended(sequence: 2)])
        #expect(try store.append(records.reversed(), to: account) == [.alreadyStored(sequence: 2), .alreadyStored(sequence: 1)])
        #expect(try store.append([try record(1, "other value")], to: account) == [.conflicting])
        #expect(try store.records(of: account, after: 0, limit: 10).map(\.record) == records)
    }

    @Test("an account never sees another account's records", arguments: StoreKind.allCases)
    func namespaces(kind: StoreKind) throws {
        let store = try kind.make()
        let alice = try store.addAccount(name: "alice", tokenHash: [1])
        let bob = try store.addAccount(name: "bob", tokenHash: [2])
        _ = try store.append([try record(1, "alice's")], to: alice)
        #expect(try store.records(of: bob, after: 0, limit: 10).isEmpty)
        // The same key in another account is a new record there, not a duplicate.
        #expect(try store.append([try record(1, "bob's")], to: bob) == [.appended(sequence: 1)])
        #expect(try store.records(of: alice, after: 0, limit: 10).map(\.record) == [try record(1, "alice's")])
        #expect(try store.account(tokenHash: [2]) == bob)
        #expect(try store.account(tokenHash: [3]) == nil)
        #expect(throws: SyncServerError.accountExists("bob")) { try store.addAccount(name: "bob", tokenHash: [4]) }
    }

    @Test("records come in pages after a sequence number", arguments: StoreKind.allCases)
    func pages(kind: StoreKind) throws {
        let store = try kind.make()
        let account = try store.addAccount(name: "a", tokenHash: [1])
        _ = try store.append(try (1 ... 5).map { try record($0, "v\($0)") }, to: account)
        let page = try store.records(of: account, after: 2, limit: 2)
        #expect(page.map(\.sequence) == [3, 4])
        #expect(page.map(\.record.path.instance) == [3, 4])
        #expect(try store.records(of: account, after: 5, limit: 2).isEmpty)
    }

    @Test("the SQLite store keeps everything across reopening, and numbers on from there")
    func sqliteReopen() throws {
        let file = ServerTestFiles.newPath()
        do {
            let store = try SQLiteSyncServerStore(path: file)
            let account = try store.addAccount(name: "a", tokenHash: [9])
            _ = try store.append([try record(1, "x")], to: account)
        }
        let store = try SQLiteSyncServerStore(path: file)
        let account = try #require(try store.account(tokenHash: [9]))
        #expect(try store.append([try record(1, "x"), try record(2, "y")], to: account) == [.alreadyStored(sequence: 1), .appended(sequence: 2)])
    }

    @Test("a file that is not a store is refused with a typed error")
    func notAStore() throws {
        let file = ServerTestFiles.newPath()
        try Data("not a database at all, just text".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: SyncServerError.self) { try SQLiteSyncServerStore(path: file) }
    }
}
