import PathbaseTestSupport
import Testing

/// The peak resident memory of this process and a server process from now on.
struct MemoryWatch {
    let server: Int32
    let serverStart: Int
    let clientStart: Int

    /// Resets both peaks; `nil` where the system does not allow it (no /proc, say).
    init?(server: Int32) {
        ProcessMemory.releaseFreedMemory()
        guard ProcessMemory.resetPeak(), ProcessMemory.resetPeak(of: server),
            let serverStart = ProcessMemory.kibibytes("VmRSS", of: server), let clientStart = ProcessMemory.kibibytes("VmRSS")
        else {
            return nil
        }
        self.server = server
        self.serverStart = serverStart
        self.clientStart = clientStart
    }

    /// Each process's peak and its growth over the resident size at the start, in MiB.
    typealias Peaks = (server: (peak: Int, growth: Int), client: (peak: Int, growth: Int))

    /// Each process's peak and its growth over the resident size at the start, in MiB.
    /// Throws when a peak cannot be read: a server that died has no peak, and reading it
    /// as 0 would make its growth negative and pass any bound.
    func peaks() throws -> Peaks {
        guard let server = ProcessMemory.kibibytes("VmHWM", of: self.server) else {
            throw HTTPTestFailure("the server (pid \(self.server)) has no peak memory to read: it died during the measurement")
        }
        guard let client = ProcessMemory.kibibytes("VmHWM") else {
            throw HTTPTestFailure("this process's peak memory can no longer be read")
        }
        return ((server / 1024, (server - serverStart) / 1024), (client / 1024, (client - clientStart) / 1024))
    }

    /// The figures as the reliability lines print them.
    static func figures(_ peaks: Peaks?) -> String {
        peaks.map { "server peak RSS \($0.server.peak) MB (+\($0.server.growth) MB), client peak RSS \($0.client.peak) MB (+\($0.client.growth) MB)" }
            ?? "peak memory not measurable here (/proc/PID/status, clear_refs)"
    }

    /// Expects both processes to have grown by less than `bound` MiB; records an issue when
    /// memory could not be measured.
    static func expectGrowth(_ peaks: Peaks?, below bound: Int) {
        guard let peaks else {
            Issue.record("peak memory cannot be measured here: \(figures(peaks))")
            return
        }
        #expect(peaks.server.growth < bound, "the server's peak memory grew by \(peaks.server.growth) MiB")
        #expect(peaks.client.growth < bound, "the client's peak memory grew by \(peaks.client.growth) MiB")
    }
}
