import Foundation

/// Latencies in milliseconds, sorted once, read as percentiles (nearest rank). For a few
/// thousand samples at most: no histogram.
struct Latencies {

    let sorted: [Double]

    init(_ milliseconds: [Double]) {
        sorted = milliseconds.sorted()
    }

    /// The value at `perMille`/1000 of the samples (500: the median, 990: p99); 0 without samples.
    func percentile(perMille: Int) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * perMille / 1000)]
    }

    var p50: Double { percentile(perMille: 500) }
    var p99: Double { percentile(perMille: 990) }
}
