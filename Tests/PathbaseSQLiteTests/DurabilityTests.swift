import Foundation
import GRDB
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Crash safety and multi-process use of one file, with real child processes.
///
/// A `PathbaseCrashWriter` child writes batches and reports each one after its commit
/// returned; the test kills it with SIGKILL at a point drawn from a seeded generator, then
/// checks the file: every batch whole or absent, every reported batch present, SQLite's
/// integrity check ok. `PATHBASE_KILL_ROUNDS` sets the number of kills (the reliability stage
/// raises it); `PATHBASE_KILL_SEED` replays the kill points of a printed seed.
@Suite("SQLite durability: kill -9 during batches, two processes on one file", .serialized)
struct DurabilityTests {

    /// The `PathbaseCrashWriter` executable, built next to the test binary.
    private static var writer: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent()
        ]
        return
            candidates
            .map { $0.appendingPathComponent("PathbaseCrashWriter") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A running writer and the batches it reported.
    private struct RunningWriter {
        let process: ChildProcess
        let reports: CrashWriterReports
    }

    private static func launch(_ writer: URL, _ arguments: [String]) throws -> RunningWriter {
        let process = try ChildProcess(writer.path, arguments, output: .pipe, errors: .inherit)
        guard let output = process.output else { throw ChildProcessError.cannotStart(writer.path, errno: EPIPE) }
        return RunningWriter(process: process, reports: CrashWriterReports(output))
    }

    /// What the file holds after a crash.
    private struct FileCheck {
        /// Instances with all eleven values.
        var wholeBatches: Set<Int> = []
        /// Instances with some but not all of their values: half-written batches.
        var partialBatches: [Int] = []
        /// SQLite's `PRAGMA integrity_check`.
        var integrity: String?
    }

    /// Every instance in the file with all eleven values of its batch, or none.
    private static func check(_ file: String) throws -> FileCheck {
        var result = FileCheck()
        do {
            let database = try SQLiteDatabase(path: file)
            defer { database.close() }
            var valuesPerInstance: [InstanceKey: Int] = [:]
            for record in database.records(after: nil) where record.path.model == 1 {
                valuesPerInstance[record.path.instance, default: 0] += 1
            }
            for (instance, count) in valuesPerInstance {
                let values = (1 ... 10).map { database.get(Path(model: 1, instance: instance, property: $0)) as Int? }
                if count == 11, values.allSatisfy({ $0 == instance }) {
                    result.wholeBatches.insert(instance)
                } else {
                    result.partialBatches.append(instance)
                }
            }
            let created = database.all(model: 1) { instance, status in status == .created ? instance : nil }
            #expect(Set(created) == Set(valuesPerInstance.keys), "an instance's status and values disagree")
        }
        result.integrity = try rawQueue(path: file).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        return result
    }

    /// Kills writers at seeded random points, `rounds` times, on one WAL file, checking the
    /// file after each kill; prints the figures.
    private static func killWriters(mode: String, defaultRounds: Int) async throws {
        let writer = try #require(Self.writer, "PathbaseCrashWriter was not built next to the tests")
        let rounds = try StressSettings.count("PATHBASE_KILL_ROUNDS", default: defaultRounds)
        let seed = try StressSettings.seed("PATHBASE_KILL_SEED")
        let replay = "replay with PATHBASE_KILL_SEED=\(StressSettings.describe(seed))"
        print("[reliability] kill -9 (\(mode)): \(rounds) rounds, seed \(StressSettings.describe(seed))")
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let file = directory.file()
        var reported: Set<Int> = []
        var inFile = 0
        var partial = 0
        var lostCount = 0
        var damaged = 0

        for round in 0 ..< rounds {
            // The kill point: after some reported batches, then a random delay that lands
            // anywhere inside a later batch.
            let batchesBeforeKill = Int.random(in: 1 ... 5, using: &random)
            let delay = UInt32.random(in: 0 ... 20_000, using: &random)
            let running = try launch(writer, [file, "\(round * 1_000_000)", "\(Int.max / 2)", mode])
            let started = await running.reports.waitFor(batchesBeforeKill, timeout: 60)
            if started { usleep(delay) }
            running.process.kill9()
            running.reports.readRemaining()
            try #require(started, "round \(round): the writer reported \(running.reports.batches.count) of \(batchesBeforeKill) batches before it ended or timed out; \(replay)")
            #expect(running.process.endedBySignal == true, "round \(round): the writer exited by itself; \(replay)")
            #expect(running.reports.garbage.isEmpty, "round \(round): unreadable reports \(running.reports.garbage)")
            reported.formUnion(running.reports.batches)

            let check = try check(file)
            #expect(check.partialBatches.isEmpty, "round \(round): half-written batches \(check.partialBatches.sorted()); \(replay)")
            let lost = reported.subtracting(check.wholeBatches)
            #expect(lost.isEmpty, "round \(round): reported committed but missing: \(lost.sorted().prefix(10)); \(replay)")
            #expect(check.integrity == "ok", "round \(round): integrity_check says \(check.integrity ?? "nothing"); \(replay)")
            inFile = check.wholeBatches.count
            lostCount = lost.count
            if check.integrity != "ok" { damaged += 1 }
            partial += check.partialBatches.count
        }
        #expect(!reported.isEmpty, "no batch was ever committed: the writer never got going")
        print(
            "[reliability] kill -9 (\(mode)): \(rounds) kills, \(reported.count) batches reported committed, \(inFile) whole batches in the file, \(partial) half-written, \(lostCount) reported but lost, integrity_check not ok \(damaged) times"
        )
    }

    @Test("A disk that fills up fails the batch that does not fit: the batches before it stay, it never appears, the file is intact")
    func fullDisk() async throws {
        let writer = try #require(Self.writer, "PathbaseCrashWriter was not built next to the tests")
        let directory = TemporaryDirectory()
        let file = directory.file()
        // The writer may not write files past 256 KiB: its WAL reaches that after a few dozen
        // batches (the first checkpoint comes at 24 MiB), and the next commit fails.
        let running = try Self.launch(writer, [file, "1", "100000", "limit:262144"])
        let status = try await running.process.wait(timeout: 300)
        running.reports.readRemaining()
        #expect(status == 0, "the writer could not read its batches back after the failure")
        let failure = running.reports.garbage.first { $0.hasPrefix("failed ") }
        let failed = try #require(failure.flatMap { Int(String($0.dropFirst("failed ".count))) }, "no batch failed: \(running.reports.garbage)")
        #expect(failed > 2, "the limit left no room for batches before it")
        #expect(running.reports.batches == Array(1 ..< failed))

        // Opened again, the WAL is recovered: the failed commit must not come back from it.
        let check = try Self.check(file)
        #expect(check.partialBatches.isEmpty, "half-written batches \(check.partialBatches.sorted())")
        #expect(check.wholeBatches == Set(running.reports.batches))
        #expect(check.integrity == "ok")
    }

    @Test("A writer killed with SIGKILL at seeded random moments: every batch whole or absent, every reported batch present")
    func killedWriters() async throws {
        try await Self.killWriters(mode: "batch", defaultRounds: 20)
    }

    @Test("A writer committing editing contexts, killed with SIGKILL: every commit whole or absent, every reported commit present")
    func killedContextCommits() async throws {
        try await Self.killWriters(mode: "context", defaultRounds: 10)
    }

    @Test("Two processes writing one file at once: no write lost, the file intact")
    func twoWriters() async throws {
        let writer = try #require(Self.writer, "PathbaseCrashWriter was not built next to the tests")
        let directory = TemporaryDirectory()
        let file = directory.file()
        // Create the file first, so that the two writers do not race to create the schema.
        try SQLiteDatabase(path: file).close()
        let first = try Self.launch(writer, [file, "0", "300"])
        let second = try Self.launch(writer, [file, "1000000", "300"])
        #expect(await first.reports.waitFor(300, timeout: 300))
        #expect(await second.reports.waitFor(300, timeout: 300))
        #expect(try await first.process.wait(timeout: 60) == 0)
        #expect(try await second.process.wait(timeout: 60) == 0)
        let check = try Self.check(file)
        #expect(check.wholeBatches == Set(first.reports.batches + second.reports.batches))
        #expect(check.wholeBatches.count == 600)
        #expect(check.partialBatches.isEmpty)
        #expect(check.integrity == "ok")
    }
}
