import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A process's memory figures from /proc/PID/status (Linux): what the memory-bound tests
/// measure.
///
/// ```swift
/// ProcessMemory.resetPeak()                          // this process
/// let peak = ProcessMemory.kibibytes("VmHWM")         // KiB since the reset
/// let server = ProcessMemory.kibibytes("VmRSS", of: serve.pid)
/// ```
///
/// The peak (`VmHWM`) covers every thread of the process: measure in a process that runs
/// nothing else meanwhile.
public enum ProcessMemory {

    /// A figure of the process's status in KiB (`VmRSS`, `VmHWM`), or `nil` off Linux or
    /// when the process is gone. `pid` `nil` is this process.
    public static func kibibytes(_ field: String, of pid: Int32? = nil) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    /// Gives memory this process freed back to the system (glibc's `malloc_trim`), so that
    /// its resident size is what it uses: a heap grown by earlier work and freed would
    /// otherwise absorb, unseen, the growth a measurement looks for.
    public static func releaseFreedMemory() {
        #if canImport(Glibc)
            // Swift's Glibc module does not export malloc.h: look the function up by name.
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return }
            typealias MallocTrim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    /// Resets the peak resident size (VmHWM) to the current one; `pid` `nil` is this process.
    /// Returns whether the system allowed it.
    @discardableResult
    public static func resetPeak(of pid: Int32? = nil) -> Bool {
        do {
            try "5".write(toFile: "/proc/\(pid.map(String.init) ?? "self")/clear_refs", atomically: false, encoding: .utf8)
            return true
        } catch {
            return false
        }
    }
}
