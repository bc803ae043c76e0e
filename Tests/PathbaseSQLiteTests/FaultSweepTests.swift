import Foundation
import GRDB
@testable import Pathbase
@testable import PathbaseSQLite
import Testing

/// A commit reported done survives any failed write and any crash (issue 44): the workload
/// of ``FaultWorkload`` run once per I/O call it makes, that call failing, through the
/// fault VFS; then its crash and power-loss images checked. And the four defects the issue
/// found, each reproduced by a named test.
///
/// Each call fails twice, once with ENOSPC and once with EIO (in the plain test run, one of
/// the two, alternating from call to call); after each run every field a
/// committed batch wrote (new objects and updates of earlier ones) must hold the latest
/// committed value, in the crash image and the power-loss image alike.
///
/// `PATHBASE_FAULT_SWEEP` bounds the calls faulted per configuration (spread evenly over the calls,
/// the first and the last always among them; 50 by default, 150 in the reliability stage);
/// `all` fails every call of the workload once. ``otherCalls()`` fails, the same way, the
/// workload's openings of files, deletions and shared-memory calls (8 of each kind per
/// configuration, up to 40 in the reliability stage).
/// Tests run one at a time: the fault VFS's state is global.
@Suite("SQLite under I/O faults: failed writes, crash and power-loss images", .serialized)
struct FaultSweepTests {

    static let modes = [
        FaultMode(exclusive: false, synchronization: .normal),
        FaultMode(exclusive: false, synchronization: .full),
        FaultMode(exclusive: true, synchronization: .normal),
        FaultMode(exclusive: true, synchronization: .full)
    ]

    /// `limit` indices spread evenly over `0 ..< count`, the first and the last among them.
    static func spread(_ count: Int, limit: Int) -> [Int] {
        guard count > limit, limit > 1 else { return Array(0 ..< (limit > 1 ? count : min(count, 1))) }
        return (0 ..< limit).map { $0 * (count - 1) / (limit - 1) }
    }

    /// `PATHBASE_FAULT_SWEEP`: a number of runs per configuration, or `all`; 50 by default
    /// (the whole sweep, ≈ 1500 runs per configuration, took 1603 s with both error kinds on
    /// 2026-12-03; the reliability stage runs 150). The plain run's sweep is synchronous and
    /// holds one of the two cooperative threads of a 2-core machine while it runs: at 150 runs
    /// with every value checked it held it for 600 s, and async suites beside it timed out.
    static var runLimit: Int {
        switch ProcessInfo.processInfo.environment["PATHBASE_FAULT_SWEEP"] {
        case "all": Int.max
        case let value?: Int(value).map { max(1, $0) } ?? 50
        case nil: 50
        }
    }

    private struct Totals {
        var faults = 0
        var runs = 0
        var lost = 0
        var kept = 0
        var integrity = 0
        var stopped = 0
        var untyped = 0
        var messages: [String] = []

        mutating func add(_ check: ImageCheck, _ context: String) {
            lost += check.lost.count
            kept += check.kept.count
            integrity += check.integrity.count
            for message in check.lost + check.kept + check.integrity where messages.count < 12 {
                messages.append("\(context): \(message)")
            }
        }
    }

    @Test("The workload, failing each of its I/O calls in turn: no reported commit lost, no rolled-back write kept, every image sound, the database usable after")
    func sweep() throws {
        let directory = TemporaryDirectory()
        let template = directory.file("template.sqlite")
        try FaultWorkload.makeTemplate(at: template)
        var totals = Totals()
        let started = Date()
        for mode in Self.modes {
            // A run without faults: what the sweep fails, one call at a time.
            let clean = try run(mode: mode, template: template, in: directory, fault: nil, failure: .noSpace, totals: &totals)
            #expect(clean > 100, "the workload made \(clean) I/O calls in \(mode)")
            // `PATHBASE_FAULT_INDEX` replays one call of the sweep (with its details).
            let replay = ProcessInfo.processInfo.environment["PATHBASE_FAULT_INDEX"].flatMap(Int.init)
            // In the reliability stage (PATHBASE_FAULT_SWEEP set) each call fails with both error
            // kinds in turn: a full disk and an I/O error take different paths in SQLite (and
            // in what reports them). In the plain test run, where this suite shares two cores
            // with every other, the kinds alternate from call to call.
            let bothKinds = ProcessInfo.processInfo.environment["PATHBASE_FAULT_SWEEP"] != nil || replay != nil
            for (position, index) in (replay.map({ [$0] }) ?? Self.spread(clean, limit: Self.runLimit)).enumerated() {
                let failures: [FaultVFS.Failure] = bothKinds ? [.noSpace, .ioError] : [position % 2 == 0 ? .noSpace : .ioError]
                for failure in failures {
                    _ = try run(mode: mode, template: template, in: directory, fault: index, failure: failure, totals: &totals)
                }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "[reliability] fault sweep: \(totals.faults) faults injected, \(totals.lost) reported commits lost, \(totals.kept) rolled-back writes kept, \(totals.integrity) integrity failures (\(totals.runs) runs in \(Self.modes.map(\.description).joined(separator: "; ")); \(totals.stopped) times the database refused writes after the fault; \(String(format: "%.0f", seconds)) s)"
        )
        for message in totals.messages { print("[fault sweep] \(message)") }
        #expect(totals.faults > 0)
        #expect(totals.lost == 0)
        #expect(totals.kept == 0)
        #expect(totals.integrity == 0)
        #expect(totals.stopped == 0)
        #expect(totals.untyped == 0)
    }

    /// The calls faulted per kind and configuration by ``otherCalls()``: 8 in the plain test
    /// run, up to 40 in the reliability stage (`PATHBASE_FAULT_SWEEP` set).
    static var otherLimit: Int {
        ProcessInfo.processInfo.environment["PATHBASE_FAULT_SWEEP"] != nil ? min(runLimit, 40) : 8
    }

    @Test("The workload, failing in turn its openings of files, deletions and shared-memory calls: typed errors, no reported commit lost, every image sound, the database usable after")
    func otherCalls() throws {
        let directory = TemporaryDirectory()
        let template = directory.file("template.sqlite")
        try FaultWorkload.makeTemplate(at: template)
        var totals = Totals()
        let started = Date()
        var fired: [String: Int] = [:]
        for (name, calls) in [("open", FaultVFS.Calls.open), ("delete", .delete), ("shm", .shm)] {
            for mode in Self.modes {
                let clean = try run(mode: mode, template: template, in: directory, fault: nil, failure: .ioError, calls: calls, totals: &totals)
                for index in Self.spread(clean, limit: Self.otherLimit) {
                    let before = totals.faults
                    _ = try run(mode: mode, template: template, in: directory, fault: index, failure: .ioError, calls: calls, totals: &totals)
                    fired[name, default: 0] += totals.faults - before
                }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "[reliability] fault sweep of other calls: \(totals.faults) faults injected (\(fired.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), \(totals.lost) reported commits lost, \(totals.kept) rolled-back writes kept, \(totals.integrity) integrity failures (\(totals.runs) runs; \(totals.stopped) times the database refused writes after the fault; \(String(format: "%.0f", seconds)) s)"
        )
        for message in totals.messages { print("[fault sweep] \(message)") }
        // Every kind fails somewhere (shared memory only where there is some: WAL without exclusive locking).
        #expect(fired["open", default: 0] > 0 && fired["delete", default: 0] > 0 && fired["shm", default: 0] > 0, "\(fired)")
        #expect(totals.lost == 0)
        #expect(totals.kept == 0)
        #expect(totals.integrity == 0)
        #expect(totals.stopped == 0)
        #expect(totals.untyped == 0)
    }

    /// One run of the workload with call `fault` failing (none if `nil`); returns the calls
    /// the run counted.
    private func run(
        mode: FaultMode, template: String, in directory: TemporaryDirectory, fault: Int?, failure: FaultVFS.Failure, calls: FaultVFS.Calls = .all, totals: inout Totals
    ) throws -> Int {
        let path = directory.file("run.sqlite")
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.copyItem(atPath: template, toPath: path)
        FaultVFS.reset()
        FaultVFS.arm(fault, calls: calls, failure: failure)
        let workload = FaultWorkload(path: path, mode: mode)
        workload.run()
        let count = FaultVFS.count
        let fired = FaultVFS.fired
        let crash = directory.file("crash.sqlite")
        let power = directory.file("power.sqlite")
        try FaultVFS.writeImage(of: path, to: crash, powerLoss: false)
        try FaultVFS.writeImage(of: path, to: power, powerLoss: true)
        let working = workload.keepsWorking()
        workload.close()
        FaultVFS.reset()
        let context = "\(mode), call \(fault.map(String.init) ?? "none") \(failure)\(fired.map { " (\($0.rawValue))" } ?? "")"
        totals.runs += 1
        if fired != nil { totals.faults += 1 }
        if fault == nil, !workload.outcome.failed.isEmpty {
            totals.messages.append("\(context): a batch failed without a fault")
            totals.integrity += 1
        }
        if !working {
            totals.stopped += 1
            if totals.messages.count < 12 { totals.messages.append("\(context): no write succeeded after the fault") }
        }
        if ProcessInfo.processInfo.environment["PATHBASE_FAULT_INDEX"] != nil, fault != nil {
            print(
                "[fault sweep] \(context): committed \(workload.outcome.committed.map { $0.first.map { "\($0)" } ?? "-" }), failed \(workload.outcome.failed.map { $0.first.map { "\($0)" } ?? "-" }), threw \(workload.outcome.thrown), reported \(workload.errors.errors)"
            )
        }
        totals.untyped += workload.outcome.untypedErrors.count
        for message in workload.outcome.untypedErrors.prefix(2) { totals.messages.append("\(context): untyped error \(message)") }
        // Only a failed sync can leave a commit that reported failure whole in the file
        // (its frames were written; SQLite's recovery finds them).
        let mayKeep = fired == FaultVFS.Calls.sync
        totals.add(ImageCheck.of(image: crash, outcome: workload.outcome, prefixOnly: false, failedMayBeKept: mayKeep), "\(context), crash image")
        totals.add(ImageCheck.of(image: power, outcome: workload.outcome, prefixOnly: mode.synchronization == .normal, failedMayBeKept: mayKeep), "\(context), power-loss image")
        return count
    }
}
