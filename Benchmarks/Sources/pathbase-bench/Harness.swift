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
func compare(_ name: String, operations: Int, rounds: Int = 7, _ measured: () -> Void, baseline: () -> Void, baselineOperations: Int? = nil) {
    var best = (measured: Double.infinity, baseline: Double.infinity)
    for _ in 0 ..< rounds {
        best.baseline = min(best.baseline, measure(operations: baselineOperations ?? operations, rounds: 1, baseline).nanosecondsPerOperation)
        best.measured = min(best.measured, measure(operations: operations, rounds: 1, measured).nanosecondsPerOperation)
    }
    report(name, Measurement(nanosecondsPerOperation: best.measured), baseline: Measurement(nanosecondsPerOperation: best.baseline))
}

/// Prints one result line in the fixed form `name: X ns/op, baseline Y ns/op, ratio R`.
func report(_ name: String, _ measured: Measurement, baseline: Measurement) {
    let ratio = measured.nanosecondsPerOperation / baseline.nanosecondsPerOperation
    let line = "\(name): \(format(measured.nanosecondsPerOperation)) ns/op, baseline \(format(baseline.nanosecondsPerOperation)) ns/op, ratio \(String(format: "%.2f", ratio))\n"
    // Written unbuffered, so that progress shows when the output is piped.
    FileHandle.standardOutput.write(Data(line.utf8))
}

private func format(_ value: Double) -> String {
    String(format: value < 100 ? "%.1f" : "%.0f", value)
}

/// Keeps the optimizer from removing work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
