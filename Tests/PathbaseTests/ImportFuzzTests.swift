import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

/// A value of a user's own `Codable` type, for the archives the import fuzzing starts from.
private struct ParcelLabel: Codable, Equatable {
    var street: String
    var number: Int
}

/// Random and mutated record archives fed to ``Database/importRecords(from:)`` on in-memory
/// and SQLite databases: nothing crashes, a refused archive throws ``RecordArchiveError``
/// and leaves every record, current value and status as it was.
///
/// Seeded (`PATHBASE_FUZZ_SEED`); `PATHBASE_FUZZ_PAYLOADS` sets the number of archives
/// (the reliability stage raises it to 10^4).
@Suite("Fuzzing: record archive import")
struct ImportFuzzTests {

    /// Archives holding every value type the format names.
    private static func corpus() throws -> [Data] {
        let database = InMemoryHistoryDatabase()
        let path = { (property: PropertyKey) in Path(model: 2020, instance: 1, property: property) }
        database.set(InstanceStatus.created, for: Path(model: 2020, instance: 1, property: 0))
        database.set(42, for: path(1))
        database.set("text", for: path(2))
        database.set(1.5, for: path(3))
        database.set(true, for: path(4))
        database.set(Data([0, 1, 255]), for: path(5))
        database.set(Date(timeIntervalSinceReferenceDate: 1_000), for: path(6))
        database.set([1, 2, 3], for: path(7))
        database.set(Int8(-3), for: path(8))
        database.set(UInt64.max, for: path(9))
        database.set(Float(2.5), for: path(10))
        database.set(ParcelLabel(street: "Elm", number: 3), for: path(11))
        database.set(Optional<String>.none, for: path(12))
        database.set(InstanceStatus.deleted, for: Path(model: 2020, instance: 2, property: 0))
        let everything = try database.exportRecords()
        let records = database.records()
        let single = try RecordArchive.encode(Array(records.prefix(1)))
        let tail = try RecordArchive.encode(Array(records.suffix(4)))
        let empty = try RecordArchive.encode([])
        return [everything, single, tail, empty]
    }

    /// A database with some data of its own, so that a change shows.
    private static func seeded(_ store: SyncFuzzTests.Store) -> any HistoryDatabase {
        let database = store.make()
        database.set(InstanceStatus.created, for: Path(model: 2021, instance: 1, property: 0))
        database.set("mine", for: Path(model: 2021, instance: 1, property: 1))
        database.set(7, for: Path(model: 2020, instance: 1, property: 1))
        return database
    }

    @Test("Mutated archives to importRecords(from:): typed refusals that change nothing")
    func importArchives() throws {
        let payloads = try StressSettings.count("PATHBASE_FUZZ_PAYLOADS", default: 500)
        let seed = try SyncFuzzTests.seed()
        var mutator = PayloadMutator(seed: seed ^ 0x1A2C)
        let corpus = try Self.corpus()
        let stores = SyncFuzzTests.Store.allCases
        var databases = stores.map(Self.seeded)
        var snapshots = databases.map { fullSnapshot($0) }
        var tally = SyncFuzzTests.Tally()

        // Each valid archive imports, or refusing proves nothing.
        for archive in corpus {
            let database = Self.seeded(.sqlite)
            #expect(throws: Never.self) { try database.importRecords(from: archive) }
        }

        for iteration in 0 ..< payloads {
            let which = iteration % stores.count
            if iteration % 200 < stores.count {
                // Fresh databases now and then, so that accepted imports do not pile up.
                databases[which] = Self.seeded(stores[which])
                snapshots[which] = fullSnapshot(databases[which])
            }
            let archive = mutator.mutate(oneOf: corpus)
            let entry = SyncFuzzTests.EntryPoint(name: "importRecords(from:)", corpus: corpus, database: databases[which]) { [database = databases[which]] data in
                do {
                    try database.importRecords(from: data)
                    return .accepted
                } catch is RecordArchiveError {
                    return .refused
                } catch {
                    return .untyped(error)
                }
            }
            let context = "archive \(iteration) on \(stores[which]), PATHBASE_FUZZ_SEED=\(StressSettings.describe(seed))"
            SyncFuzzTests.feed(archive, to: entry, before: &snapshots[which], tally: &tally, context: context)
        }
        print(
            "[reliability] fuzz importRecords(from:): \(tally.fed) archives, \(tally.refused) refused with a typed error, \(tally.accepted) accepted, \(tally.untyped) untyped errors, \(tally.changedAfterRefusal) refusals changed the database"
        )
        #expect(tally.refused * 2 > tally.fed, "only \(tally.refused) of \(tally.fed) archives were refused")
        #expect(tally.accepted > 0, "no mutated archive was accepted: the mutations never reach past the parser")
    }
}
