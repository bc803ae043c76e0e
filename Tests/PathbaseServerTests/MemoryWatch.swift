import PathbaseTestSupport

/// The peak resident memory of this process and a server process from now on.
struct MemoryWatch {
    let server: Int32
    let serverStart: Int
    let clientStart: Int

    /// Resets both peaks; `nil` where the system does not allow it (no /proc, say).
    init?(server: Int32) {
        ProcessMemory.releaseFreedMemory()
        guard ProcessMemory.resetPeak(), ProcessMemory.resetPeak(of: server),
              let serverStart = ProcessMemory.kibibytes("VmRSS", of: server), let clientStart = ProcessMemory.kibibytes("VmRSS") else {
            return nil
        }
        self.server = server
        self.serverStart = serverStart
        self.clientStart = clientStart
    }

    /// Each process's peak and its growth over the resident size at the start, in MiB.
    func peaks() -> (server: (peak: Int, growth: Int), client: (peak: Int, growth: Int)) {
        let server = ProcessMemory.kibibytes("VmHWM", of: self.server) ?? 0
        let client = ProcessMemory.kibibytes("VmHWM") ?? 0
        return ((server / 1024, (server - serverStart) / 1024), (client / 1024, (client - clientStart) / 1024))
    }
}
