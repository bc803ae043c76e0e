import Foundation
import Pathbase
@testable import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Model(id: 3)
final class Gizmo {
    @Property(id: 1) var label: String
    @Property(id: 2) var rank: Int
    @Reference(id: 3) var parent: Gizmo?
    @ReferenceList(id: 4) var links: [Gizmo]
}

/// The struct of the collection half of the differential runs.
struct Widget: Codable, Identifiable, Equatable {
    var id: Int
    var name: String
    var size: Int
    var note: String?
}

/// Random work on an `SQLiteDatabase` file — writes of every kind (values changing type,
/// statuses, references and reference lists), nested batches that commit or throw, reads
/// inside and outside transactions, listings, queries in SQL, inverse lookups, history,
/// reopening — compared step by step with the same work on an in-memory database, which
/// has none of the file's caches (pending writes, kept listing values, active-instance
/// sets, statement caches) and whose batches are replayed without the writes of those
/// that threw. Records from another replica arrive among the writes, as synchronization
/// applies them, and views at their timestamps are compared too. The file is used plain,
/// without history, through a cache (with some batches opened on the file under it),
/// through undo, observed (live queries and live collections that absorb every write must
/// equal a fresh fetch), and through an editing context (compared with a reference that
/// takes each edit at once and drops the discarded ones).
@Suite("SQLiteDatabase against an in-memory database under random work")
struct StorageDifferentialTests {

    /// One database as the app uses it, and the collection handle used with it: a
    /// long-lived one, which keeps the bases of its saves as an app's does.
    private final class Side {
        /// The database that holds the data.
        let store: any Database
        let wrapper: Wrapper
        private(set) var database: any Database
        var widgets: CodableCollection<Widget>
        private(set) var undo: () -> Bool = { false }
        private(set) var redo: () -> Bool = { false }
        /// The editing context the app works in (`context` only).
        private(set) var context: EditingContext?
        /// Through an observed file: live queries and live collections kept since the last
        /// renewal, each checked against a fresh fetch (`nil`: they agree).
        private(set) var liveChecks: [() throws -> String?] = []

        init(_ store: any Database, wrapper: Wrapper) throws {
            self.store = store
            self.wrapper = wrapper
            database = store
            widgets = store.collection(Widget.self)
            try renew()
        }

        /// New handles over the same data, as after reopening: no bases, no undo steps.
        func renew() throws {
            func wrap<Store: Database>(_ store: Store) {
                switch wrapper {
                case .none, .noHistory:
                    database = store
                case .cached:
                    database = CachedDatabase(wrapping: store, cache: MaximumCountCache(maxCount: 20))
                case .undoable:
                    let undoable = UndoableDatabase(wrapping: store)
                    (database, undo, redo) = (undoable, undoable.undo, undoable.redo)
                case .observed:
                    database = ObservedDatabase(wrapping: store)
                case .context:
                    let context = store.createEditingContext()
                    (database, self.context) = (context, context)
                }
            }
            wrap(store)
            // Declared indexes: on the file, real ones, which the queries use.
            widgets = database.collection(Widget.self, indexes: [\.size, \.name])
            liveChecks = wrapper == .observed ? try makeLiveChecks() : []
        }

        /// Live results that absorb every write one by one, as apps keep them on screen.
        private func makeLiveChecks() throws -> [() throws -> String?] {
            let database = self.database, widgets = self.widgets
            var checks: [() throws -> String?] = StorageDifferentialTests.gizmoQueries(in: database).enumerated().map { index, query in
                let live = LiveQuery(query, in: database)
                return {
                    let absorbed = live.results.map(\.id).sorted(), fetched = database.fetch(query).map(\.id).sorted()
                    return absorbed == fetched ? nil : "live query \(index): \(absorbed), fetched \(fetched)"
                }
            }
            let everySize = try widgets.live(where: \.size >= 2)
            checks.append {
                let absorbed = everySize.results.sorted { $0.id < $1.id }, fetched = try widgets.fetch(where: \.size >= 2).sorted { $0.id < $1.id }
                return absorbed == fetched ? nil : "live collection: \(absorbed), fetched \(fetched)"
            }
            let page = try widgets.live(where: \.note == nil || \.name == "x", sortedBy: [.ascending(\.id)], limit: 3)
            checks.append {
                let absorbed = page.results, fetched = try widgets.fetch(where: \.note == nil || \.name == "x", sortedBy: [.ascending(\.id)], limit: 3)
                return absorbed == fetched ? nil : "live page: \(absorbed), fetched \(fetched)"
            }
            return checks
        }
    }

    /// One write, applied the same to both databases.
    private typealias Write = (Side) throws -> Void

    private struct Failure: Error {}

    /// How the app reaches the file (`noHistory`: a file that keeps no history, used
    /// plain). The in-memory side is plain, but for undo, where it is undoable too (with
    /// undo and redo among the writes).
    enum Wrapper: String, CaseIterable, CustomTestStringConvertible {
        case none, noHistory, cached, undoable, observed, context
        var testDescription: String { rawValue }

        /// Whether histories are compared: not on a file that keeps none, nor through an
        /// editing context (which has none). Through undo they are: undo writes new records
        /// on both sides, and a batch that throws leaves none on either (the file rolls
        /// back, the in-memory database withdraws the batch's records).
        var comparesHistory: Bool { self != .noHistory && self != .context }

        /// The reference is undoable too through undo; otherwise plain (through an editing
        /// context, it takes each edit at once, and is rebuilt without them on a discard).
        var ofReference: Wrapper { self == .undoable ? .undoable : .none }
    }

    /// Seeds, each run through every wrapper.
    static let cases = [1, 2, 3] as [UInt64]

    /// The two databases and the writes that count (those of batches that did not throw).
    private final class Run {
        let directory = TemporaryDirectory()
        let wrapper: Wrapper
        var sqlite: SQLiteDatabase
        var file: Side
        var reference: Side
        var generator: SplitMix64
        /// Writes outside batches and of finished batches, in order.
        var committed: [Write] = []
        /// The writes of each running batch, outermost first. Through an editing context,
        /// the first level holds the context's pending edits: a commit keeps them, a discard
        /// drops them like a batch that threw.
        var running: [[Write]] = []
        var step = 0
        /// What was done, to tell in a failure.
        var trace: [String] = []

        func note(_ event: String) {
            trace.append("\(step): \(event)")
        }

        /// The recent steps, for a failure message.
        var recent: String { trace.suffix(40).joined(separator: "\n") }
        /// The last struct saved whole, which an app may save again (a retry).
        var lastWidget: Widget?
        /// Structs the app fetched by id and keeps, to change and save later.
        var heldCopies: [Int: Widget] = [:]
        /// The timestamps of stored records from another replica: the same on both sides,
        /// and in the same place among each side's own writes, so views at them must agree.
        var syncedTimes: [Timestamp] = []
        /// A day from now, in microseconds: after every local write of the run, until a
        /// record from another replica this new moves the clocks.
        let future = Int64(Date().timeIntervalSince1970 * 1_000_000) + 86_400_000_000

        init(seed: UInt64, wrapper: Wrapper) throws {
            generator = SplitMix64(seed: seed)
            self.wrapper = wrapper
            sqlite = try SQLiteDatabase(path: directory.file(), options: SQLiteDatabase.Options(keepsHistory: wrapper != .noHistory))
            file = try Side(sqlite, wrapper: wrapper)
            reference = try Side(InMemoryHistoryDatabase(), wrapper: wrapper.ofReference)
            if wrapper == .context { running = [[]] }
        }

        /// The file as the app uses it: the SQLite database or a wrapper of it.
        var front: any BatchDatabase {
            get throws {
                guard let batches = file.database as? any BatchDatabase else { throw Failure() }
                return batches
            }
        }

        func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
        func chance(_ percent: Int) -> Bool { random(0 ..< 100) < percent }

        /// `beneathContext`: a write to the database under the app's editing context, which
        /// the context's commit or discard doesn't decide about.
        func write(_ write: @escaping Write, beneathContext: Bool = false) throws {
            try write(file)
            try write(reference)
            if running.isEmpty || (beneathContext && wrapper == .context) {
                committed.append(write)
            } else {
                running[running.count - 1].append(write)
            }
        }

        /// The editing context's commit or discard; the reference saw its edits at once.
        func endEdits(committing: Bool) throws {
            note(committing ? "commit" : "discard")
            if committing {
                try file.context?.commitChanges(onConflict: .newestWins)
                committed += running[0]
                running = [[]]
            } else {
                file.context?.discardChanges()
                running = [[]]
                try rebuildReference()
            }
        }

        /// The reference again, without the writes of the batch that threw.
        func rebuildReference() throws {
            reference = try Side(InMemoryHistoryDatabase(), wrapper: reference.wrapper)
            syncedTimes = []
            for write in committed + running.joined() { try write(reference) }
        }

        func reopen() throws {
            note("reopen")
            sqlite.close()
            sqlite = try SQLiteDatabase(path: directory.file(), options: SQLiteDatabase.Options(keepsHistory: wrapper != .noHistory))
            file = try Side(sqlite, wrapper: wrapper)
            if wrapper == .context {
                // The context went with the handles, and its edits with it.
                running = [[]]
                try rebuildReference()
            }
            // The app's handles are new too: no bases, no undo steps, on either side.
            try write({ side in try side.renew() }, beneathContext: true)
        }
    }

    // MARK: Models

    @Test("Models: values, statuses, references and lists in nested batches; every read agrees", arguments: Wrapper.allCases, cases)
    func models(wrapper: Wrapper, seed: UInt64) throws {
        let run = try Run(seed: seed, wrapper: wrapper)
        for _ in 0 ..< 400 {
            try modelStep(run, depth: 0)
        }
        try compareModels(run)
        try run.reopen()
        try compareModels(run)
        for imported in try importedExports(run) {
            let copy = modelView(imported, fully: true, withHistory: run.wrapper.comparesHistory)
            let reference = modelView(run.reference.database, fully: true, withHistory: run.wrapper.comparesHistory)
            #expect(copy == reference, "imported into \(type(of: imported))\n\(run.recent)")
        }
    }

    /// The file exported, then imported into a new in-memory database and a new file: a
    /// backup restored, which must show what the file shows.
    private func importedExports(_ run: Run) throws -> [any Database] {
        let archive = try run.sqlite.exportRecords()
        let memory = InMemoryHistoryDatabase()
        try memory.importRecords(from: archive)
        let file = try SQLiteDatabase(path: run.directory.file("imported-\(UUID().uuidString).sqlite"))
        try file.importRecords(from: archive)
        return [memory, file]
    }

    private func modelStep(_ run: Run, depth: Int) throws {
        run.step += 1
        let choice = run.random(0 ..< 100)
        switch choice {
        case 0 ..< 45:
            if run.chance(17) {
                let path = Path(model: Gizmo.modelId, instance: run.random(0 ..< 12), property: run.random(0 ..< 5))
                try run.write(syncedRecord(run, path: path), beneathContext: true)
            } else {
                try run.write(randomModelWrite(run))
            }
        case 45 ..< 55 where depth < 3 && run.wrapper != .context:
            try batch(run, depth: depth) { try modelStep(run, depth: depth + 1) }
        case 55 ..< 58 where depth == 0:
            try run.reopen()
        case 58 ..< 60 where depth == 0:
            try wrapperStep(run)
        case 60 ..< 66:
            // Reads inside a read transaction (or joining the running batch).
            try run.file.database.inReadIfSupported { try compareModels(run, fully: false) }
        case 66 ..< 68 where depth == 0 && run.wrapper.comparesHistory && !run.syncedTimes.isEmpty:
            try prune(run)
        case 68 ..< 76:
            // One path, read before anything else reads (a listing writes every waiting row).
            let path = Path(model: Gizmo.modelId, instance: run.random(0 ..< 12), property: run.random(0 ..< 5))
            let file = describe(path, in: run.file.database), reference = describe(path, in: run.reference.database)
            #expect(file == reference, "step \(run.step)\n\(run.recent)")
            if file != reference { throw Failure() }
        default:
            try compareModels(run, fully: run.chance(20))
        }
    }

    /// History pruned at the time of a record from another replica, through the app's
    /// handle; a replayed reference prunes at the same place among its writes. Histories,
    /// and views at every synced time (before the new start: empty), must still agree.
    private func prune(_ run: Run) throws {
        let timestamp = run.syncedTimes[run.random(0 ..< run.syncedTimes.count)]
        run.note("prune before \(timestamp)")
        try run.write { side in
            guard let prunable = side.database as? any PrunableHistoryDatabase else { throw Failure() }
            try prunable.prune(before: timestamp)
        }
        try compareModels(run)
        for time in run.syncedTimes { try compareViews(run, at: time) }
    }

    /// Undo or redo through an undoable file (and the undoable reference), a commit or a
    /// discard through an editing context; these are writes, replayed with the others.
    private func wrapperStep(_ run: Run) throws {
        if run.wrapper == .context {
            try run.endEdits(committing: run.chance(70))
            return
        }
        guard run.wrapper == .undoable else { return }
        let undoing = run.chance(65)
        var answers: [Bool] = []
        try run.write { side in answers.append(undoing ? side.undo() : side.redo()) }
        run.note("\(undoing ? "undo" : "redo") \(answers)")
        #expect(answers.count != 2 || answers[0] == answers[1], "step \(run.step)")
    }

    private func randomModelWrite(_ run: Run) -> Write {
        let instance = run.random(0 ..< 12)
        let path = { (property: PropertyKey) in Path(model: Gizmo.modelId, instance: instance, property: property) }
        switch run.random(0 ..< 10) {
        case 0:
            let status: InstanceStatus = run.chance(70) ? .created : .deleted
            return { $0.database.set(status, for: .status(model: Gizmo.modelId, instance: instance)) }
        case 1, 2:
            let label = ["", "a", "b", "ab", "zz"][run.random(0 ..< 5)]
            return { $0.database.set(label, for: path(1)) }
        case 3, 4:
            let rank = run.random(-3 ..< 6)
            return { $0.database.set(rank, for: path(2)) }
        case 5:
            // A value of another type where a rank was.
            let text = "r\(run.random(0 ..< 3))"
            return { $0.database.set(text, for: path(2)) }
        case 6:
            let parent: Int? = run.chance(80) ? run.random(0 ..< 12) : nil
            return { $0.database.set(parent, for: path(3)) }
        case 7, 8:
            let links = (0 ..< run.random(0 ..< 4)).map { _ in run.random(0 ..< 12) }
            return { $0.database.set(links, for: path(4)) }
        default:
            // A list replaced by a value of another type.
            let number = run.random(0 ..< 12)
            return { $0.database.set(number, for: path(4)) }
        }
    }

    /// A record from another replica, as synchronization applies it: older than every local
    /// write (it becomes current only where nothing is stored) or newer (it wins, and the
    /// clocks move past it, so local writes after it are newer still).
    ///
    /// Only old ones under an editing context: a newer record of a path the context edited
    /// wins in the reference, which took the edit at once, and not in the context, whose
    /// edit shows until it is committed as newer still.
    private func syncedRecord(_ run: Run, path: Path) -> Write {
        let old = run.wrapper == .context || run.chance(50)
        let time = (old ? Self.longAgo : run.future) + Int64(run.step)
        let value: any DatabaseValue
        switch path.property {
        case PropertyKey.instanceId: value = run.chance(70) ? InstanceStatus.created : InstanceStatus.deleted
        case 1: value = ["", "a", "s"][run.random(0 ..< 3)]
        case 4: value = [run.random(0 ..< 12)]
        default: value = run.random(-3 ..< 6)
        }
        let record = Record(path: path, timestamp: Timestamp(time: time, replica: 99), value: value)
        run.note("synced \(old ? "old" : "new") \(path) = \(value)")
        return { [unowned run] side in
            // Kept when the reference stores it: a rebuilt reference replays only the writes
            // that count. (The record of a batch that threw moved the file's clock, so a view
            // at its time would differ.)
            if side === run.reference { run.syncedTimes.append(record.timestamp) }
            // Synchronization writes to the database, under the app's editing context.
            let target = side.wrapper == .context ? side.store : side.database
            guard let history = target as? any HistoryDatabase else { throw Failure() }
            history.apply(record)
        }
    }

    /// 1 January 2000, in microseconds: before every local write.
    private static let longAgo: Int64 = 946_684_800_000_000

    /// The queries compared, in SQL and live.
    fileprivate static func gizmoQueries(in database: any Database) -> [QueryDescriptor<Gizmo>] {
        let target = Gizmo(database: database, id: 1)
        return [
            QueryDescriptor(where: \.rank >= 2),
            QueryDescriptor(where: \.label == "a" || \.rank < 0),
            QueryDescriptor(where: .references(\.links, target)),
            QueryDescriptor(where: \.label != "" && !(\.rank == 1), sortBy: \.rank)
        ]
    }

    /// Live results through an observed file must equal a fresh fetch.
    private func checkLiveResults(_ run: Run) throws {
        for check in run.file.liveChecks {
            if let problem = try check() {
                Issue.record("step \(run.step): \(problem)\n\(run.recent)")
                throw Failure()
            }
        }
    }

    /// What a user sees of the models in one database.
    private struct ModelView: Equatable {
        var active: [Int]
        var statuses: [String]
        var listed: [String]
        var queried: [[Int]]
        var referrers: [[Int]]
        var values: [String]
        var histories: [String]
    }

    /// The value at a path read as each type it may hold. A stored `.notCreated` means no
    /// status (undo writes it where a rollback leaves nothing).
    private func describe(_ path: Path, in database: any Database) -> String {
        let status = (database.get(path) as InstanceStatus?).flatMap { $0 == .notCreated ? nil : $0 }
        return
            "\(path): \(String(describing: database.get(path) as Int?)) \(String(describing: database.get(path) as String?)) \(String(describing: database.get(path) as [Int]?)) \(String(describing: status))"
    }

    /// `withHistory`: compare histories too (see ``Wrapper/comparesHistory``).
    private func modelView(_ database: any Database, fully: Bool, withHistory: Bool) -> ModelView {
        // Point reads first: the listing below writes every waiting row.
        var values: [String] = []
        if fully {
            for instance in 0 ..< 12 {
                for property in 0 ... 4 {
                    values.append(describe(Path(model: Gizmo.modelId, instance: instance, property: property), in: database))
                }
            }
        }
        let gizmos = database.all(of: Gizmo.self).sorted { $0.id < $1.id }
        let describe = { (gizmo: Gizmo) in
            "\(gizmo.id):\(gizmo.label):\(gizmo.rank):\(gizmo.parent?.id ?? -1):\(gizmo.links.map(\.id))"
        }
        let statuses = database.all(model: Gizmo.modelId) { instance, status in "\(instance)=\(status)" }.sorted()
        let queried = Self.gizmoQueries(in: database).map { query in
            // Ties in the sort have no order: compare sets of ids unless sorted by id.
            database.fetch(query).map(\.id).sorted()
        }
        let referrers = (0 ..< 3).flatMap { id -> [[Int]] in
            let gizmo = Gizmo(database: database, id: id)
            return [gizmo.referrers(through: \Gizmo.parent).map(\.id).sorted(), gizmo.referrers(through: \Gizmo.links).map(\.id).sorted()]
        }
        var histories: [String] = []
        if fully, withHistory {
            for instance in 0 ..< 12 {
                for property in 0 ... 4 {
                    let path = Path(model: Gizmo.modelId, instance: instance, property: property)
                    if let history = database as? any HistoryDatabase {
                        let ints = history.history(of: path, as: Int.self).map(\.value)
                        let texts = history.history(of: path, as: String.self).map(\.value)
                        histories.append("\(path): \(history.records(at: path).count) \(ints) \(texts)")
                    }
                }
            }
        }
        return ModelView(active: gizmos.map(\.id), statuses: statuses, listed: gizmos.map(describe), queried: queried, referrers: referrers, values: values, histories: histories)
    }

    private func compareModels(_ run: Run, fully: Bool = true) throws {
        let file = modelView(run.file.database, fully: fully, withHistory: run.wrapper.comparesHistory)
        let reference = modelView(run.reference.database, fully: fully, withHistory: run.wrapper.comparesHistory)
        #expect(file == reference, "step \(run.step)\n\(run.recent)")
        if file != reference { throw Failure() }
        try checkLiveResults(run)
        if fully, run.wrapper.comparesHistory, !run.syncedTimes.isEmpty {
            try compareViews(run, at: run.syncedTimes[run.random(0 ..< run.syncedTimes.count)])
        }
    }

    /// Both databases as they were at a moment: reads, listings, queries and inverse
    /// lookups of a view at the timestamp of a record from another replica.
    private func compareViews(_ run: Run, at timestamp: Timestamp) throws {
        guard let fileHistory = run.file.database as? any HistoryDatabase,
            let referenceHistory = run.reference.database as? any HistoryDatabase
        else { throw Failure() }
        let file = modelView(fileHistory.view(at: timestamp), fully: true, withHistory: false)
        let reference = modelView(referenceHistory.view(at: timestamp), fully: true, withHistory: false)
        #expect(file == reference, "view at \(timestamp), step \(run.step)\n\(run.recent)")
        if file != reference { throw Failure() }
    }

    /// Runs `body` a few times in a batch of the file that commits, or throws at its end.
    private func batch(_ run: Run, depth: Int, _ body: () throws -> Void) throws {
        let throwsAtEnd = run.chance(30)
        run.note("batch {")
        run.running.append([])
        // An undoable reference runs the batch too: its undo steps are batches, and it takes
        // back a batch that throws itself. A plain one has no batches: it is rebuilt.
        let referenceBatches = run.reference.database as? any BatchDatabase
        // An app may open a batch on the file itself and write through the cache inside it:
        // the cache must not keep what the batch takes back.
        let opensOnStore = run.wrapper == .cached && run.chance(50)
        if opensOnStore { run.note("(on the store)") }
        let batches: any BatchDatabase = opensOnStore ? run.sqlite : try run.front
        let syncedBefore = run.syncedTimes.count
        do {
            try batches.batch {
                if let referenceBatches {
                    try referenceBatches.batch { try steps(run, throwsAtEnd: throwsAtEnd, body) }
                } else {
                    try steps(run, throwsAtEnd: throwsAtEnd, body)
                }
            }
            run.note("} committed")
            let writes = run.running.removeLast()
            if run.running.isEmpty { run.committed += writes } else { run.running[run.running.count - 1] += writes }
        } catch is Failure where throwsAtEnd {
            run.note("} threw")
            run.running.removeLast()
            if referenceBatches == nil {
                try run.rebuildReference()
            } else {
                // The reference took them back itself: their times are no stored record's.
                run.syncedTimes.removeSubrange(syncedBefore...)
            }
        }
    }

    /// A batch's body: a few steps, then maybe the failure.
    private func steps(_ run: Run, throwsAtEnd: Bool, _ body: () throws -> Void) throws {
        for _ in 0 ..< run.random(1 ..< 6) { try body() }
        if throwsAtEnd { throw Failure() }
    }

    // MARK: Collections

    @Test("Collections: saves, replaces and deletes in nested batches; fetches and queries agree", arguments: Wrapper.allCases, cases)
    func collections(wrapper: Wrapper, seed: UInt64) throws {
        let run = try Run(seed: seed, wrapper: wrapper)
        for _ in 0 ..< 300 {
            try collectionStep(run, depth: 0)
        }
        try compareCollections(run)
        try run.reopen()
        try compareCollections(run)
        let reference = try collectionView(run.reference)
        for imported in try importedExports(run) {
            #expect(try collectionView(Side(imported, wrapper: .none)) == reference, "imported into \(type(of: imported))\n\(run.recent)")
        }
    }

    private func collectionStep(_ run: Run, depth: Int) throws {
        run.step += 1
        switch run.random(0 ..< 100) {
        case 0 ..< 50:
            try run.write(randomCollectionWrite(run))
        case 50 ..< 62 where depth < 3 && run.wrapper != .context:
            try batch(run, depth: depth) { try collectionStep(run, depth: depth + 1) }
        case 62 ..< 64 where depth == 0:
            try run.reopen()
        case 64 ..< 66 where depth == 0:
            try wrapperStep(run)
        case 66 ..< 76:
            try run.file.database.inReadIfSupported { try compareCollections(run) }
        default:
            try compareCollections(run)
        }
    }

    private func randomWidget(_ run: Run) -> Widget {
        Widget(
            id: run.random(0 ..< 10),
            name: ["", "x", "y", "xy"][run.random(0 ..< 4)],
            size: run.random(0 ..< 5),
            note: run.chance(50) ? nil : "n\(run.random(0 ..< 3))"
        )
    }

    private func randomCollectionWrite(_ run: Run) -> Write {
        switch run.random(0 ..< 12) {
        case 10:
            // The app's own copy, saved as it is; or saved again (after a batch that threw).
            let widget = run.chance(50) ? run.lastWidget ?? randomWidget(run) : randomWidget(run)
            run.lastWidget = widget
            run.note("save own \(widget)")
            return { try $0.widgets.save(widget) }
        case 11:
            // A copy fetched earlier, changed and saved later: stale if the struct changed.
            // A fetch is in the list of writes: it gives the handle the base of later saves.
            let id = run.random(0 ..< 10)
            if var copy = run.heldCopies.removeValue(forKey: id) {
                copy.size = run.random(0 ..< 5)
                run.note("save held \(copy)")
                return { try $0.widgets.save(copy) }
            }
            run.note("hold \(id)")
            return { [unowned run] side in
                let copy = try side.widgets.fetch(id: id)
                if side === run.file { run.heldCopies[id] = copy }
            }
        case 0 ..< 5:
            // A struct as fetched, with one field changed: what apps save.
            let widget = randomWidget(run)
            let field = run.random(0 ..< 3)
            run.note("save fetched \(widget.id) field \(field) from \(widget)")
            return { side in
                let widgets = side.widgets
                var saved = try widgets.fetch(id: widget.id) ?? widget
                switch field {
                case 0: saved.name = widget.name
                case 1: saved.size = widget.size
                default: saved.note = widget.note
                }
                try widgets.save(saved)
            }
        case 5:
            let many = (0 ..< run.random(1 ..< 4)).map { _ in randomWidget(run) }
            // Distinct ids: one batch saves each struct once.
            let distinct = Dictionary(many.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }).values.sorted { $0.id < $1.id }
            run.note("save \(distinct)")
            return { try $0.widgets.save(Array(distinct)) }
        case 6:
            let widget = randomWidget(run)
            run.note("replace \(widget)")
            return { try $0.widgets.replace(widget) }
        case 7, 8:
            let id = run.random(0 ..< 10)
            run.note("delete \(id)")
            return { try $0.widgets.delete(id: id) }
        default:
            let size = run.random(0 ..< 5)
            run.note("delete size \(size)")
            return { try $0.widgets.delete(where: \.size == size) }
        }
    }

    /// What a user sees of the collection in one database, read through a new handle: the
    /// long-lived one's bases stay as the writes left them.
    private func collectionView(_ side: Side) throws -> [String] {
        let widgets = side.database.collection(Widget.self)
        var view = try widgets.fetch().sorted { $0.id < $1.id }.map { "\($0)" }
        view.append("count \(try widgets.count())")
        view.append("\(try widgets.fetch(where: \.size >= 2, sortedBy: \.id).map(\.id))")
        view.append("\(try widgets.fetch(where: \.note == nil || .hasPrefix(\.name, "x"), sortedBy: \.id).map(\.id))")
        // Paged in SQL (one sort key, no residual filter), and sorted by two keys in Swift.
        view.append("\(try widgets.fetch(where: \.size < 4 && \.name != "", sortedBy: \.id, descending: true, offset: 1, limit: 3).map(\.id))")
        view.append("\(try widgets.fetch(where: .all, sortedBy: [.descending(\.name), .ascending(\.id)], limit: 4).map(\.id))")
        view.append("count xy \(try widgets.count(where: \.name == "xy"))")
        for id in 0 ..< 10 { view.append("\(id): \(String(describing: try widgets.fetch(id: id)))") }
        return view
    }

    private func compareCollections(_ run: Run) throws {
        let file = try collectionView(run.file)
        let reference = try collectionView(run.reference)
        #expect(file == reference, "step \(run.step)\n\(run.recent)")
        if file != reference { throw Failure() }
        try checkLiveResults(run)
    }
}
