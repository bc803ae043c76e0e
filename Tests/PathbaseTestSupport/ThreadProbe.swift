import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells another thread whether the thread that made it is blocked (waiting for a lock).
///
/// ```swift
/// // On the thread that will wait for the lock:
/// probes.put(ThreadProbe.current())
/// database.set(1, for: path)
/// // On the thread that holds it:
/// #expect(waitUntil { probe.isWaiting })
/// ```
///
/// A test that claims "the other thread waits for the batch" must see the other thread
/// waiting, or it could pass only because that thread had not run yet. The probe reads the
/// thread's scheduler state (`/proc` on Linux, `thread_info` on Apple platforms).
public struct ThreadProbe: Sendable {

    #if canImport(Darwin)
        private let port: mach_port_t
    #else
        private let statusFile: String
    #endif

    /// A probe of the calling thread.
    public static func current() -> ThreadProbe {
        ThreadProbe()
    }

    private init() {
        #if canImport(Darwin)
            port = pthread_mach_thread_np(pthread_self())
        #else
            // "/proc/thread-self" links to "PID/task/TID" of the calling thread (gettid() is not
            // visible to Swift); the probe reads that thread's file from any other thread.
            var target = [CChar](repeating: 0, count: 256)
            let length = readlink("/proc/thread-self", &target, target.count - 1)
            let relative = length > 0 ? String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "self"
            statusFile = "/proc/\(relative)/stat"
        #endif
    }

    /// Whether the thread is asleep, waiting for something (a lock, a condition); false once
    /// it has ended.
    public var isWaiting: Bool {
        #if canImport(Darwin)
            var info = thread_basic_info()
            var count = mach_msg_type_number_t(MemoryLayout<thread_basic_info_data_t>.size / MemoryLayout<integer_t>.size)
            let result = withUnsafeMutablePointer(to: &info) {
                $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                    thread_info(port, thread_flavor_t(THREAD_BASIC_INFO), $0, &count)
                }
            }
            return result == KERN_SUCCESS && info.run_state == TH_STATE_WAITING
        #else
            // "tid (name) S ...": the state is the first field after the parenthesised name.
            // The file is gone once the thread has ended: not waiting.
            guard let status = try? String(contentsOfFile: statusFile, encoding: .utf8),
                let nameEnd = status.lastIndex(of: ")")
            else { return false }
            let state = status[status.index(after: nameEnd)...].drop { $0 == " " }.first
            return state == "S" || state == "D"
        #endif
    }
}

/// Checks `condition` every 0.1 ms until it holds, at most `timeout` seconds; whether it held.
///
/// ```swift
/// #expect(waitUntil(timeout: 10) { probe.isWaiting }, "the writer never blocked")
/// ```
public func waitUntil(timeout: TimeInterval = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(100)
    }
    return true
}
