import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The batches a `PathbaseCrashWriter` reported committed, read from its standard output.
///
/// The writer prints each batch's instance number after its commit returned; whatever it
/// printed before it was killed is still in the pipe afterwards.
final class CrashWriterReports {

    private let descriptor: Int32
    private var pending: [UInt8] = []
    private var ended = false

    /// Every batch reported so far, in order.
    private(set) var batches: [Int] = []

    /// Lines that were not a batch number (a bug in the writer or the reading).
    private(set) var garbage: [String] = []

    /// Kept open while the reports are read.
    private let handle: FileHandle

    /// Reads the reports from `handle`, the reading end of the writer's standard output.
    init(_ handle: FileHandle) {
        self.handle = handle
        descriptor = handle.fileDescriptor
    }

    /// Reads until at least `count` batches are reported in all; whether that happened
    /// before `timeout` and before the writer's output ended. It sleeps between reads
    /// rather than blocking in `poll`, so that the cooperative pool stays free for the
    /// async tests running meanwhile.
    func waitFor(_ count: Int, timeout: TimeInterval) async -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while batches.count < count, !ended {
            if deadline.timeIntervalSinceNow <= 0 { return false }
            if !readAvailable(waitingMilliseconds: 0) { try? await Task.sleep(for: .milliseconds(2)) }
        }
        return batches.count >= count
    }

    /// Reads everything the writer has written; call after it exited.
    func readRemaining() {
        while !ended, readAvailable(waitingMilliseconds: 0) {}
    }

    /// Reads what is in the pipe, waiting for data at most `milliseconds`; whether it read any.
    @discardableResult
    private func readAvailable(waitingMilliseconds milliseconds: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, milliseconds) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = read(descriptor, &chunk, chunk.count)
        guard count > 0 else {
            ended = true
            return false
        }
        pending += chunk[0 ..< count]
        while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            if let batch = Int(line) { batches.append(batch) } else { garbage.append(line) }
        }
        return true
    }
}
