import Foundation
import SurveyEngine
import SurveyMetrics

/// A timeline as intervals on the wall-clock grid, in the form that merges: counts and sparse
/// histograms. The report's `TimelineRecord` is made from it.
struct TimelineGrid {
    /// One step's counts in one interval.
    struct StepBin {
        var attempts = 0
        var succeeded = 0
        var failed = 0
        var retries = 0
        var errors: [String: Int] = [:]
        var latency = SparseHistogram()

        mutating func merge(_ other: StepBin) {
            attempts += other.attempts
            succeeded += other.succeeded
            failed += other.failed
            retries += other.retries
            errors.merge(other.errors, uniquingKeysWith: +)
            latency.merge(other.latency)
        }
    }

    /// Everything in one interval.
    struct Bin {
        var stepBins: [String: StepBin] = [:]
        /// Respondents under way, on average over the interval.
        var active: Double = 0
        var started = 0
        var finished = 0
        var dropped = 0
        /// How late the tool started arrivals and ended waits in the interval.
        var lag = SparseHistogram()

        /// Adds `other`; `weight` scales its average (½ when two intervals become one).
        mutating func merge(_ other: Bin, weight: Double) {
            for (name, bin) in other.stepBins { stepBins[name, default: StepBin()].merge(bin) }
            active += other.active * weight
            started += other.started
            finished += other.finished
            dropped += other.dropped
            lag.merge(other.lag)
        }
    }

    /// Nanoseconds per interval.
    var interval: UInt64
    /// The number of the first bin's interval on the grid.
    var first: UInt64
    /// The steps that have a line, whether or not a bin counts any of their attempts.
    var steps: [String]
    var bins: [Bin] = []
    /// When the run began and ended, in nanoseconds since 1970; nil when not known (a report
    /// of a version before it). Shards run at once span from the first start to the last end.
    var run: (start: UInt64, end: UInt64)? = nil

    /// Merges neighbours in pairs along the grid of twice the interval, and doubles it.
    mutating func coarsen() {
        let newFirst = first / 2
        var merged: [Bin] = []
        if !bins.isEmpty {
            let last = first + UInt64(bins.count) - 1
            merged = Array(repeating: Bin(), count: Int(last / 2 - newFirst + 1))
            for (position, bin) in bins.enumerated() {
                merged[Int((first + UInt64(position)) / 2 - newFirst)].merge(bin, weight: 0.5)
            }
        }
        bins = merged
        first = newFirst
        interval *= 2
    }

    /// Adds another grid's bins, coarsening either to the other's interval first, and the sum
    /// while it has more than `Timeline.maxIntervals` bins.
    mutating func merge(_ other: TimelineGrid) {
        var other = other
        for step in other.steps where !steps.contains(step) { steps.append(step) }
        if let mine = run, let theirs = other.run {
            run = (min(mine.start, theirs.start), max(mine.end, theirs.end))
        } else {
            run = nil
        }
        while interval < other.interval { coarsen() }
        while other.interval < interval { other.coarsen() }
        if other.bins.isEmpty { return }
        if bins.isEmpty {
            (bins, first) = (other.bins, other.first)
            return
        }
        // Shards whose clocks disagree by years (one never set) span that long: coarsened until
        // the span fits, never laid out interval by interval.
        func span() -> UInt64 {
            max(first + UInt64(bins.count), other.first + UInt64(other.bins.count)) - min(first, other.first)
        }
        while span() > UInt64(Timeline.maxIntervals) {
            coarsen()
            other.coarsen()
        }
        let start = min(first, other.first)
        let end = max(first + UInt64(bins.count), other.first + UInt64(other.bins.count))
        var combined = Array(repeating: Bin(), count: Int(end - start))
        for (position, bin) in bins.enumerated() { combined[Int(first - start) + position].merge(bin, weight: 1) }
        for (position, bin) in other.bins.enumerated() { combined[Int(other.first - start) + position].merge(bin, weight: 1) }
        bins = combined
        first = start
        while bins.count > Timeline.maxIntervals { coarsen() }
    }

    /// The report's form: percentiles read from each interval's histogram.
    var record: RunReport.TimelineRecord {
        let seconds = Double(interval) / 1e9
        func t(_ position: Int) -> Double { (Double(position) * seconds * 1000).rounded() / 1000 }
        var stepPoints: [String: [RunReport.TimelineRecord.StepPoint]] = [:]
        let names = Set(bins.flatMap(\.stepBins.keys)).union(steps)
        for name in names {
            stepPoints[name] = bins.enumerated().map { position, bin in
                let part = bin.stepBins[name] ?? StepBin()
                var point = RunReport.TimelineRecord.StepPoint(
                    t: t(position), attempts: part.attempts, succeeded: part.succeeded, failed: part.failed, retries: part.retries,
                    errors: part.errors)
                if !part.latency.isEmpty {
                    let histogram = part.latency.histogram
                    point.p50 = ms(histogram.value(atPercentile: 50))
                    point.p95 = ms(histogram.value(atPercentile: 95))
                    point.p99 = ms(histogram.value(atPercentile: 99))
                    point.max = ms(histogram.max)
                    point.histogram = RunReport.TimelineRecord.IntervalHistogram(part.latency)
                }
                return point
            }
        }
        let survey = bins.enumerated().map { position, bin in
            var point = RunReport.TimelineRecord.SurveyPoint(
                t: t(position), respondentsActive: (bin.active * 1000).rounded() / 1000, respondentsStarted: bin.started,
                respondentsFinished: bin.finished, dropped: bin.dropped)
            if !bin.lag.isEmpty {
                point.lagP99 = ms(bin.lag.histogram.value(atPercentile: 99))
                point.lag = RunReport.TimelineRecord.IntervalHistogram(bin.lag)
            }
            return point
        }
        var record = RunReport.TimelineRecord(
            intervalS: seconds, start: Self.timestamp(milliseconds: first &* (interval / 1_000_000)), stepPoints: stepPoints, survey: survey
        )
        if let run {
            // To the microsecond, from the first interval's beginning; whole numbers until then, as a
            // `Double` of nanoseconds since 1970 is only good to a quarter of a microsecond.
            let origin = first &* interval
            func s(_ nanoseconds: UInt64) -> Double {
                (Double(Int64(bitPattern: nanoseconds &- origin)) / 1000).rounded() / 1_000_000
            }
            (record.runStartS, record.runEndS) = (s(run.start), s(max(run.start, run.end)))
        }
        return record
    }

    private func ms(_ nanoseconds: UInt64) -> Double { milliseconds(Double(nanoseconds)) }

    /// `2026-11-23T19:45:01.500Z` for that many milliseconds since 1970, exactly: made from
    /// whole numbers, not from a `Double` of seconds that could print a millisecond less.
    static func timestamp(milliseconds: UInt64) -> String {
        let seconds = Date(timeIntervalSince1970: Double(milliseconds / 1000)).formatted(Date.ISO8601FormatStyle())
        let fraction = String(milliseconds % 1000)
        return seconds.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }
}
