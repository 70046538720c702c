import Foundation
import SurveyEngine
import SurveyMetrics

/// A latency distribution as a text bar chart: counts in logarithmic bins between the fastest
/// and the slowest attempt, for reports that cannot draw.
enum LatencyChart {
    /// `(lower bound ns, upper bound ns, count)` of `bins` logarithmic bins between the
    /// histogram's min and max; each bucket counts in the bin of the value it stands for.
    static func bins(_ histogram: Histogram, count bins: Int) -> [(lower: UInt64, upper: UInt64, count: UInt64)] {
        guard histogram.count > 0, bins > 0 else { return [] }
        let low = Double(max(histogram.min, 1))
        let high = Double(max(histogram.max, histogram.min + 1)) * 1.000_001
        let ratio = pow(high / low, 1 / Double(bins))
        var edges: [UInt64] = (0...bins).map { UInt64(low * pow(ratio, Double($0))) }
        edges[bins] = UInt64(high) + 1
        var result: [(lower: UInt64, upper: UInt64, count: UInt64)] = (0..<bins).map { (edges[$0], edges[$0 + 1], 0) }
        for bucket in histogram.buckets {
            let value = histogram.representative(of: bucket)
            let bin = result.lastIndex { $0.lower <= value } ?? 0
            result[bin].count += bucket.count
        }
        return result
    }

    /// Horizontal bars over 12 bins, empty bins left out: `1.2 ms – 1.5 ms  ████ 42`.
    static func lines(_ histogram: Histogram) -> [String] {
        let bins = bins(histogram, count: 12).filter { $0.count > 0 }
        let top = bins.map(\.count).max() ?? 1
        return bins.map { bin in
            let label = "\(Readable.ms(milliseconds(Double(bin.lower)))) – \(Readable.ms(milliseconds(Double(bin.upper))))"
            let width = Int((Double(bin.count) / Double(top) * 40).rounded(.up))
            return label.padding(toLength: 24, withPad: " ", startingAt: 0) + " " + String(repeating: "█", count: width) + " \(bin.count)"
        }
    }
}
