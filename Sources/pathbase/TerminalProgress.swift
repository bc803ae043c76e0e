import Foundation

/// A progress line on the terminal, rewritten in place (`\r`), for long imports and
/// exports. Silent when standard error is not a terminal (piped, redirected, in tests),
/// unless `PATHBASE_PROGRESS=1` asks for it.
final class TerminalProgress {

    private let label: String
    private let total: Int
    private let isShown: Bool
    private var lastShown = Date.distantPast
    private var hasShown = false

    /// Progress of `total` items; shown only for at least `minimumTotal` of them.
    init(_ label: String, total: Int, minimumTotal: Int = 10_000) {
        self.label = label
        self.total = total
        let forced = ProcessInfo.processInfo.environment["PATHBASE_PROGRESS"] == "1"
        isShown = forced || (isatty(STDERR_FILENO) == 1 && total >= minimumTotal)
    }

    /// `done` of the items are done; redraws at most ten times a second, and at the end.
    func update(_ done: Int) {
        guard isShown else { return }
        let now = Date()
        guard done >= total || now.timeIntervalSince(lastShown) >= 0.1 else { return }
        lastShown = now
        hasShown = true
        let percent = total > 0 ? done * 100 / total : 100
        FileHandle.standardError.write(Data("\r\(label): \(done) of \(total) records (\(percent)%)".utf8))
    }

    /// Ends the line, so that later output starts on a new one.
    func finish() {
        guard isShown, hasShown else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
