import Foundation
import GRDB
@testable import Pathbase
@testable import PathbaseSQLite
import Testing

/// A disk that went bad (issue 67): every write failing from one call on, until the fault is
/// cleared, under the sweep's workload. Nested in ``FaultSweepTests`` so that it runs one at
/// a time with the sweep (the fault VFS's state is global).
extension FaultSweepTests {
    @Suite("SQLite under persistent I/O faults: a disk that went bad")
    struct Persistent {

        /// Where each configuration's writes start failing: this many points spread over its
        /// writes (the first and the last among them).
        static let points = 6

        @Test("Every write failing from call N on: typed errors, no commit after it, none lost; cleared and reopened, the file is sound and holds exactly the committed batches")
        func writesFailFromCallOn() throws {
            let directory = TemporaryDirectory()
            let template = directory.file("template.sqlite")
            try FaultWorkload.makeTemplate(at: template)
            var fired = 0
            var problems: [String] = []
            for mode in FaultSweepTests.modes {
                let writes = try Self.run(mode: mode, template: template, in: directory, fault: nil, failure: .noSpace, problems: &problems).writes
                #expect(writes > 20, "the workload made \(writes) writes in \(mode)")
                for (position, index) in FaultSweepTests.spread(writes, limit: Self.points).enumerated() {
                    let failure: FaultVFS.Failure = position % 2 == 0 ? .noSpace : .ioError
                    if try Self.run(mode: mode, template: template, in: directory, fault: index, failure: failure, problems: &problems).fired { fired += 1 }
                }
            }
            for problem in problems.prefix(20) { Issue.record("\(problem)") }
            #expect(problems.isEmpty)
            #expect(fired >= FaultSweepTests.modes.count * (Self.points - 1), "\(fired) persistent faults fired")
        }

        /// One run of the workload, every write from call `fault` on failing (none if `nil`):
        /// what it checks goes to `problems`.
        private static func run(
            mode: FaultMode, template: String, in directory: TemporaryDirectory, fault: Int?, failure: FaultVFS.Failure, problems: inout [String]
        ) throws -> (writes: Int, fired: Bool) {
            let path = directory.file("persistent.sqlite")
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: path)
            FaultVFS.reset()
            FaultVFS.arm(fault, calls: .write, failure: failure, persistent: true)
            let workload = FaultWorkload(path: path, mode: mode)
            workload.run()
            let fired = FaultVFS.fired != nil
            let writes = FaultVFS.count
            let crash = directory.file("persistent-crash.sqlite")
            let power = directory.file("persistent-power.sqlite")
            try FaultVFS.writeImage(of: path, to: crash, powerLoss: false)
            try FaultVFS.writeImage(of: path, to: power, powerLoss: true)
            // The disk is still bad: no write gets through, on an open connection or a new one.
            let working = workload.keepsWorking()
            workload.close()
            // The fault clears; the file is opened again (through the default VFS).
            FaultVFS.arm(nil)
            FaultVFS.reset()
            let context = "\(mode), writes failing from \(fault.map(String.init) ?? "none") (\(failure))"
            let outcome = workload.outcome
            if fault == nil, !outcome.failed.isEmpty || !working { problems.append("\(context): a batch failed without a fault") }
            if fired, working { problems.append("\(context): a write got through after the fault") }
            for message in outcome.untypedErrors { problems.append("\(context): untyped error \(message)") }
            if let first = outcome.sequence.firstIndex(of: false), outcome.sequence[first...].contains(true) {
                problems.append("\(context): a batch committed after one failed: \(outcome.sequence)")
            }
            for (name, image, prefixOnly) in [("file", path, false), ("crash image", crash, false), ("power-loss image", power, mode.synchronization == .normal)] {
                let check = ImageCheck.of(image: image, outcome: outcome, prefixOnly: prefixOnly, failedMayBeKept: false)
                problems += (check.lost + check.kept + check.integrity).map { "\(context), \(name): \($0)" }
            }
            // What the template held (committed before the workload) is there, and the file
            // takes writes again.
            let errors = ErrorLog()
            let reopened = try SQLiteDatabase(path: path, options: .init(errorHandler: errors.handler))
            defer { reopened.close() }
            if reopened.get(id: 1, of: Person.self)?.name != "Ada" || reopened.get(id: 2, of: Person.self)?.age != 40 {
                problems.append("\(context): the template's people are not there")
            }
            do {
                try reopened.batch { Item.create(in: reopened, id: 95, title: "after the disk came back", count: 95) }
            } catch {
                problems.append("\(context): no write after the fault cleared: \(error)")
            }
            if reopened.get(id: 95, of: Item.self)?.title != "after the disk came back" { problems.append("\(context): the write after the fault is not there") }
            return (writes, fired)
        }
    }
}
