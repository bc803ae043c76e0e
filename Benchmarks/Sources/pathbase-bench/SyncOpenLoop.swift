import Foundation
import Pathbase

/// The open-loop push line (issue 49): requests sent at a fixed rate whatever the answers,
/// each one's latency counted from the time it was scheduled to be sent, so a slow answer
/// does not delay the next requests and hide their wait (no coordinated omission).
///
/// `PREFIX.push.open-loop: p50 X ms, p99 Y ms, p99.9 Z ms (goal p99 < 50 ms: met|missed),
/// R requests/s, E errors (detail)`. The percentiles come from the sorted latencies (at most
/// a few thousand), not a histogram.
extension SyncLoad {

    /// Sends push requests of `requestSize` new records at `requestsPerSecond` for `seconds`,
    /// spread over the clients' transports (client *i* through server *i mod n*), and prints
    /// the line. Failed requests are counted, not sent again, and have no latency.
    func openLoopPush(requestsPerSecond: Double, seconds: Double, closedLoop: Double) async throws {
        let count = max(1, Int(requestsPerSecond * seconds))
        let interval = 1 / requestsPerSecond
        let transports = (0 ..< clients).map { client in
            HTTPSyncTransport(server: servers[client % servers.count], token: tokens[client % tokens.count])
        }
        // Replica ids and instances that no closed-loop record uses.
        let batches = try (0 ..< count).map { index in
            try Self.makeRecords(replica: UInt32(50_000 + index % clients), first: 100_000_000 + index * requestSize, count: requestSize)
        }
        let clock = ContinuousClock()
        let start = clock.now + .milliseconds(50)
        let outcomes = try await withThrowingTaskGroup(of: Double?.self) { group in
            for index in 0 ..< count {
                let scheduled = start + .seconds(Double(index) * interval)
                try await clock.sleep(until: scheduled)
                let transport = transports[index % transports.count]
                let records = batches[index]
                group.addTask {
                    do {
                        let response = try await transport.push(PushRequest(replica: UInt32(50_000 + index % transports.count), records: records))
                        guard response.acknowledged.count == records.count else { return nil }
                        return Self.seconds(scheduled.duration(to: clock.now)) * 1000
                    } catch {
                        return nil
                    }
                }
            }
            var outcomes: [Double?] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let latencies = Latencies(outcomes.compactMap { $0 })
        let errors = outcomes.count - latencies.sorted.count
        func percentile(_ perMille: Int) -> Double { latencies.percentile(perMille: perMille) }
        let p99 = percentile(990)
        SyncBenchmark.line(
            "\(prefix).push.open-loop: p50 \(format(percentile(500))) ms, p99 \(format(p99)) ms, p99.9 \(format(percentile(999))) ms (goal p99 < 50 ms: \(p99 < 50 && errors == 0 ? "met" : "missed")), \(format(requestsPerSecond)) requests/s, \(errors) errors (\(count) pushes of \(requestSize) records over \(format(seconds)) s from \(clients) clients\(servers.count == 1 ? "" : " through \(servers.count) servers"), 50% of the closed-loop \(format(closedLoop)) requests/s; latency from the scheduled send time)"
        )
    }

    private func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
