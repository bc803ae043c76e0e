import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

private struct LiveRow: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var name: String
    var age: Int?
    var group: Int
}

/// Random saves, replacements, deletions (by id, by query, all), batches that throw, undo
/// and sync pulls on collections with live results; after every step each live result must
/// equal fetching its query again.
@Suite("Codable collections: live results against fetching again")
struct LiveCollectionOracleTests {

    private struct Failure: Error {}

    enum Setup: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, inMemoryHistory, undoableSQLite, undoableInMemoryHistory
        var testDescription: String { rawValue }
    }

    private struct Handles {
        let database: any Database
        let batch: (() throws -> Void) throws -> Void
        var undo: (() -> Bool)?
        var redo: (() -> Bool)?
    }

    private func make(_ setup: Setup) throws -> Handles {
        switch setup {
        case .sqlite:
            let observable = ObservableDatabase(wrapping: try SQLiteDatabase(path: SQLiteTestFiles.newPath()))
            return Handles(database: observable, batch: { try observable.batch($0) })
        case .inMemoryHistory:
            // No transactions: a batch is refused (batchesUnavailable) and runs nothing.
            let observable = ObservableDatabase(wrapping: InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2)))
            return Handles(database: observable, batch: { try observable.batch($0) })
        case .undoableSQLite:
            let undoable = UndoableDatabase(wrapping: ObservedDatabase(wrapping: try SQLiteDatabase(path: SQLiteTestFiles.newPath())))
            return Handles(database: undoable, batch: { try undoable.batch($0) }, undo: undoable.undo, redo: undoable.redo)
        case .undoableInMemoryHistory:
            let undoable = UndoableDatabase(wrapping: ObservedDatabase(wrapping: InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))))
            return Handles(database: undoable, batch: { try undoable.batch($0) }, undo: undoable.undo, redo: undoable.redo)
        }
    }

    private func randomRow(_ random: inout SplitMix64) -> LiveRow {
        LiveRow(
            id: Int.random(in: 0 ..< 14, using: &random),
            name: ["Ada", "Bo", "Cy", "Di", "Ed"][Int.random(in: 0 ..< 5, using: &random)],
            age: Bool.random(using: &random) ? Int.random(in: 10 ..< 30, using: &random) : nil,
            group: Int.random(in: 0 ..< 3, using: &random))
    }

    @Test(arguments: Setup.allCases, [1, 2, 3] as [UInt64])
    func liveResultsEqualAFetch(setup: Setup, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let handles = try make(setup)
        let database = handles.database
        let rows = database.collection(LiveRow.self)
        let other = database.collection(LiveRow.self)
        let producer = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let remote = producer.collection(LiveRow.self)
        let queries: [CollectionQuery<LiveRow>] = [
            CollectionQuery(),
            CollectionQuery(where: \.age >= 18 && \.group != 2, sortedBy: [.descending(\.age), .ascending(\.name)], offset: 1, limit: 4),
            CollectionQuery(where: \.age == nil || \.name < "Cy", sortedBy: [.ascending(\.group)], limit: 6)
        ]
        let lives = try queries.map { try LiveCollection($0, in: rows) }
        var log: [String] = []
        for step in 0 ..< 120 {
            let operation = Int.random(in: 0 ..< 12, using: &random)
            switch operation {
            case 0, 1, 2:
                let row = randomRow(&random)
                log.append("save \(row)")
                try rows.save(row)
            case 3:
                let batch = (0 ..< Int.random(in: 1 ... 4, using: &random)).map { _ in randomRow(&random) }
                log.append("save batch \(batch.map(\.id))")
                // Two structs of one id in one batch: the last wins.
                try other.save(batch)
            case 4:
                let row = randomRow(&random)
                log.append("replace \(row)")
                try other.replace(row)
            case 5:
                let id = Int.random(in: 0 ..< 14, using: &random)
                log.append("delete \(id)")
                try rows.delete(id: id)
            case 6:
                let group = Int.random(in: 0 ..< 3, using: &random)
                log.append("delete group \(group)")
                try other.delete(where: \.group == group)
            case 7:
                log.append("throwing batch")
                let row = randomRow(&random)
                let deleted = Int.random(in: 0 ..< 14, using: &random)
                let batch = {
                    try handles.batch {
                        try rows.save(row)
                        try rows.delete(id: deleted)
                        throw Failure()
                    }
                }
                if setup == .inMemoryHistory {
                    // No transactions: the batch is refused before its body runs.
                    #expect(throws: DatabaseCapabilityError.batchesUnavailable) { try batch() }
                } else {
                    // The batch rethrows the body's own error, after rolling it back.
                    #expect(throws: Failure.self) { try batch() }
                }
            case 8:
                if let undo = handles.undo, let redo = handles.redo {
                    let redoing = Int.random(in: 0 ..< 3, using: &random) == 0
                    log.append(redoing ? "redo" : "undo")
                    _ = redoing ? redo() : undo()
                } else {
                    log.append("removeAll")
                    try rows.removeAll()
                }
            default:
                // Another replica edits, then this one pulls everything it has.
                let row = randomRow(&random)
                log.append("remote save \(row), pull")
                try remote.save(row)
                try pullCollection(rows, from: producer, into: database)
            }
            for (index, live) in lives.enumerated() {
                let fetched = try rows.fetch(queries[index])
                guard live.results == fetched else {
                    Issue.record(
                        """
                        step \(step), query \(index): live \(live.results.map(\.id)) ≠ fetched \(fetched.map(\.id))
                        \(log.suffix(6).joined(separator: "\n"))
                        """)
                    return
                }
            }
        }
    }
}
