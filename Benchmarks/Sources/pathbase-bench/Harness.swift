import Foundation

/// Times a block and reports nanoseconds per operation: the best of several rounds, so
/// that a stray page fault or context switch does not decide the figure.
struct Measurement {
    let nanosecondsPerOperation: Double
}

/// Runs `body` `rounds` times; `body` performs `operations` operations per round.
func measure(operations: Int, rounds: Int = 5, setUp: () -> Void = {}, _ body: () -> Void) -> Measurement {
    var best = Double.infinity
    for _ in 0 ..< rounds {
        setUp()
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
        best = min(best, elapsed / Double(operations))
    }
    return Measurement(nanosecondsPerOperation: best)
}

/// Measures two blocks doing the same work in alternating rounds, so that both see the same
/// machine state, and prints the result line. Each block performs `operations` operations.
/// `baselineOperations` is the baseline's count when it does fewer (slower) operations.
/// `goal`, when given, is printed on the next line as `  goal ≤ G`.
func compare(_ name: String, operations: Int, rounds: Int = 7, goal: Double? = nil, _ measured: () -> Void, baseline: () -> Void, baselineOperations: Int? = nil) {
    guard BenchScale.runs(name) else { return }
    var best = (measured: Double.infinity, baseline: Double.infinity)
    for _ in 0 ..< (BenchScale.isSmoke ? 1 : rounds) {
        best.baseline = min(best.baseline, measure(operations: baselineOperations ?? operations, rounds: 1, baseline).nanosecondsPerOperation)
        best.measured = min(best.measured, measure(operations: operations, rounds: 1, measured).nanosecondsPerOperation)
    }
    report(name, Measurement(nanosecondsPerOperation: best.measured), baseline: Measurement(nanosecondsPerOperation: best.baseline), goal: goal)
}

/// Prints one result line in the fixed form `name: X ns/op, baseline Y ns/op, ratio R`,
/// then the goal for the ratio if there is one. `unit` replaces `ns` for lines that
/// measure something else (`bytes`).
func report(_ name: String, _ measured: Measurement, baseline: Measurement, unit: String = "ns", goal: Double? = nil) {
    let ratio = measured.nanosecondsPerOperation / baseline.nanosecondsPerOperation
    var line = "\(name): \(format(measured.nanosecondsPerOperation)) \(unit)/op, baseline \(format(baseline.nanosecondsPerOperation)) \(unit)/op, ratio \(String(format: "%.2f", ratio))\n"
    if let goal {
        line += "  goal ≤ \(String(format: "%.1f", goal))\n"
    }
    // Written unbuffered, so that progress shows when the output is piped.
    FileHandle.standardOutput.write(Data(line.utf8))
}

/// The smoke mode (`pathbase-bench sqlite --smoke`, or `PATHBASE_BENCH_SMOKE=1`): every
/// line with tiny counts and one round, so CI proves in seconds that the lines still run.
/// Its figures mean nothing.
enum BenchScale {
    static let isSmoke =
        CommandLine.arguments.contains("--smoke")
        || ProcessInfo.processInfo.environment["PATHBASE_BENCH_SMOKE"] != nil

    /// `PATHBASE_BENCH_ONLY=name` runs only the lines whose name starts with it (their
    /// set-up still runs): a profile then holds one line's work.
    static let only = ProcessInfo.processInfo.environment["PATHBASE_BENCH_ONLY"]

    static func runs(_ line: String) -> Bool {
        only.map { line.hasPrefix($0) } ?? true
    }

    /// `full` normally, `smoke` in the smoke mode.
    static func count(_ full: Int, smoke: Int) -> Int {
        isSmoke ? smoke : full
    }
}

private func format(_ value: Double) -> String {
    String(format: value < 100 ? "%.1f" : "%.0f", value)
}

/// Keeps the optimizer from removing work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
