import Foundation
import SurveyEngine
import SurveyMetrics

extension RunReport {
    /// The run over time (`timeline` in the JSON report): one point per interval of wall-clock
    /// time, for each step and for the whole survey. Intervals lie on a grid of wall-clock
    /// time (`start` is a multiple of `interval_s` since 1970), so timelines of shards fall on
    /// the same intervals and merge exactly. Documented in docs/report-format.md.
    struct TimelineRecord: Codable, Sendable, Equatable {
        /// The length of one interval, in seconds.
        var intervalS: Double
        /// When the first interval begins: a wall-clock time at or before the run's start.
        var start: String
        /// By step name, one point per interval, the first at `t` 0 (`endpoints` in the JSON).
        var stepPoints: [String: [StepPoint]]
        /// The whole survey: one point per interval.
        var survey: [SurveyPoint]
        /// When the run began and ended, in seconds from `start`, to the microsecond: the first
        /// interval holds the run's start and the last its end, and each is rated over the part
        /// of it between them. Absent from reports of versions before it (`started_at` and
        /// `ended_at` say the same to the millisecond: `span`).
        var runStartS: Double? = nil
        var runEndS: Double? = nil

        enum CodingKeys: String, CodingKey {
            case start, survey
            case stepPoints = "endpoints"
            case intervalS = "interval_s"
            case runStartS = "run_start_s"
            case runEndS = "run_end_s"
        }

        /// One step's attempts that started in one interval.
        struct StepPoint: Codable, Sendable, Equatable {
            /// Seconds from `start` to the interval's beginning.
            var t: Double
            var attempts: Int
            var succeeded: Int
            var failed: Int
            var retries: Int
            /// Failed attempts by kind, with `http_4xx`, `http_5xx`, … for failed statuses.
            var errors: [String: Int]
            /// Corrected latency percentiles and maximum, in ms; `null` without attempts.
            @NullWhenAbsent var p50: Double? = nil
            @NullWhenAbsent var p95: Double? = nil
            @NullWhenAbsent var p99: Double? = nil
            @NullWhenAbsent var max: Double? = nil
            /// The interval's latency histogram; absent without attempts.
            var histogram: IntervalHistogram?
        }

        /// The whole survey in one interval.
        struct SurveyPoint: Codable, Sendable, Equatable {
            var t: Double
            /// Respondents under way, on average over the interval.
            var respondentsActive: Double
            var respondentsStarted: Int
            var respondentsFinished: Int
            /// Open-model arrivals dropped at the concurrency cap.
            var dropped: Int
            /// How late the tool itself started the interval's arrivals and ended its waits (think,
            /// pace, retry), p99 in ms (`RunReport.Lag`); absent when there were none, and from
            /// reports of versions before it.
            var lagP99: Double? = nil
            /// The histogram behind `lagP99`.
            var lag: IntervalHistogram? = nil

            enum CodingKeys: String, CodingKey {
                case t, dropped, lag
                case lagP99 = "lag_p99_ms"
                case respondentsActive = "respondents_active"
                case respondentsStarted = "respondents_started"
                case respondentsFinished = "respondents_finished"
            }
        }

        /// A histogram in the most compact form: nanosecond buckets of `Histogram` as a flat
        /// list `[index, count, index, count, …]`, with the exact sum, min and max.
        struct IntervalHistogram: Codable, Sendable, Equatable {
            var count: UInt64
            var sum: Double
            var min: UInt64
            var max: UInt64
            var buckets: [UInt64]
        }
    }
}

extension RunReport.TimelineRecord.IntervalHistogram {
    /// The record of an interval's histogram.
    init(_ histogram: SparseHistogram) {
        self.init(
            count: histogram.count, sum: histogram.sum, min: histogram.min, max: histogram.max,
            buckets: histogram.sparseBuckets.flatMap { [UInt64($0.index), $0.count] })
    }

    /// The histogram back; nil when the record is not one.
    var histogram: SparseHistogram? {
        guard buckets.count % 2 == 0 else { return nil }
        let pairs = stride(from: 0, to: buckets.count, by: 2).map { (index: Int(clamping: buckets[$0]), count: buckets[$0 + 1]) }
        guard let histogram = Histogram(sparseBuckets: pairs, sum: sum, min: min, max: max), histogram.count == count else { return nil }
        return SparseHistogram(histogram)
    }
}

extension RunReport.TimelineRecord {
    /// The record of an engine timeline, of a run that lasted `elapsed` from the timeline's
    /// origin (nil: not known); nil when it is off.
    init?(_ timeline: Timeline, elapsed: Duration? = nil) {
        guard timeline.isEnabled else { return nil }
        // Every step of the run has a line, as in the report's endpoints, with or without attempts.
        var grid = TimelineGrid(interval: timeline.interval, first: timeline.start / timeline.interval, steps: timeline.steps.map(\.name))
        if let elapsed, elapsed >= .zero {
            let (seconds, attoseconds) = elapsed.components
            let nanoseconds = UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
            grid.run = (timeline.origin, timeline.origin &+ nanoseconds)
        }
        let active = timeline.respondentsActive
        for (position, point) in timeline.points.enumerated() {
            var stepBins: [String: TimelineGrid.StepBin] = [:]
            for step in timeline.steps {
                let part = point[step]
                var errors: [String: Int] = [:]
                for (status, count) in part.failedStatuses { errors["http_\(status / 100)xx", default: 0] += count }
                for (kind, count) in part.errors { errors[kind.rawValue, default: 0] += count }
                stepBins[step.name] = TimelineGrid.StepBin(
                    attempts: part.attempts, succeeded: part.succeeded, failed: part.failed, retries: part.retries, errors: errors,
                    latency: part.latency)
            }
            grid.bins.append(
                TimelineGrid.Bin(
                    stepBins: stepBins, active: active[position], started: point.respondentsStarted,
                    finished: point.respondentsFinished, dropped: point.dropped, lag: point.lag))
        }
        self = grid.record
    }

    /// The interval in nanoseconds, and the number of the first interval on the wall-clock
    /// grid; nil when they are not whole milliseconds on the grid.
    var gridPosition: (interval: UInt64, first: UInt64)? {
        guard intervalS.isFinite, intervalS >= 0.001, intervalS < 1e9 else { return nil }
        let intervalMs = (intervalS * 1000).rounded()
        guard abs(intervalMs - intervalS * 1000) < 1e-6,
            let date = try? Date(start, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        else { return nil }
        let startMs = (date.timeIntervalSince1970 * 1000).rounded()
        guard startMs >= 0, startMs.truncatingRemainder(dividingBy: intervalMs) == 0 else { return nil }
        return (UInt64(intervalMs) * 1_000_000, UInt64(startMs / intervalMs))
    }

    /// The grid form back, for merging; nil when the record is inconsistent.
    var grid: TimelineGrid? {
        guard let (interval, first) = gridPosition else { return nil }
        var grid = TimelineGrid(interval: interval, first: first, steps: stepPoints.keys.sorted())
        if let runStartS, let runEndS, runStartS >= 0, runEndS >= runStartS, runEndS < 1e9 {
            let origin = first &* interval
            func ns(_ seconds: Double) -> UInt64 { origin &+ UInt64((seconds * 1e9).rounded()) }
            grid.run = (ns(runStartS), ns(runEndS))
        }
        let count = survey.count
        guard stepPoints.values.allSatisfy({ $0.count == count }) else { return nil }
        for position in 0..<count {
            var bins: [String: TimelineGrid.StepBin] = [:]
            for (name, points) in stepPoints {
                let point = points[position]
                var latency = SparseHistogram()
                if let record = point.histogram {
                    guard let histogram = record.histogram else { return nil }
                    latency = histogram
                }
                bins[name] = TimelineGrid.StepBin(
                    attempts: point.attempts, succeeded: point.succeeded, failed: point.failed, retries: point.retries,
                    errors: point.errors, latency: latency)
            }
            let part = survey[position]
            var lag = SparseHistogram()
            if let record = part.lag {
                guard let histogram = record.histogram else { return nil }
                lag = histogram
            }
            grid.bins.append(
                TimelineGrid.Bin(
                    stepBins: bins, active: part.respondentsActive, started: part.respondentsStarted, finished: part.respondentsFinished,
                    dropped: part.dropped, lag: lag))
        }
        return grid
    }

    /// The timeline of shards run at once: each coarsened to the longest interval among them,
    /// then added up interval by interval along the wall-clock grid. Nil when a part has none
    /// (its run had timelines off); throws naming the file whose timeline is inconsistent.
    static func merged(_ parts: [(path: String, record: Self?)]) throws(RunReport.MergeError) -> Self? {
        var grids: [TimelineGrid] = []
        for (path, record) in parts {
            guard let record else { return nil }
            guard let grid = record.grid else { throw RunReport.MergeError(description: "\(path): the timeline is inconsistent") }
            grids.append(grid)
        }
        guard var total = grids.first else { return nil }
        for grid in grids.dropFirst() { total.merge(grid) }
        return total.record
    }

    /// Where the run began and ended on the timeline, in seconds from `start`: `run_start_s`
    /// and `run_end_s`, or for a report without them, `startedAt` and `endedAt` (the report's,
    /// to the millisecond); nil when neither can be read or they make no sense.
    func span(startedAt: String, endedAt: String) -> (start: Double, end: Double)? {
        if let runStartS, let runEndS, runStartS.isFinite, runEndS.isFinite, runStartS >= 0, runEndS >= runStartS {
            return (runStartS, runEndS)
        }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        guard let (interval, first) = gridPosition, let started = try? Date(startedAt, strategy: style),
            let ended = try? Date(endedAt, strategy: style)
        else { return nil }
        let origin = Double(first &* (interval / 1_000_000)) / 1000
        let start = started.timeIntervalSince1970 - origin
        let end = ended.timeIntervalSince1970 - origin
        guard start.isFinite, end.isFinite, start >= 0, end >= start else { return nil }
        return (start, end)
    }

    /// Each interval as the run covered it, in seconds from the run's start: the first begins
    /// at the run's start and the last ends at its end, where the grid's intervals begin
    /// before and end after them. Whole intervals from the timeline's start when the run's
    /// times cannot be read.
    func covered(startedAt: String, endedAt: String) -> [CoveredInterval] {
        let length = intervalS.isFinite && intervalS > 0 ? intervalS : 0
        let span = span(startedAt: startedAt, endedAt: endedAt) ?? (0, Double(survey.count) * length)
        return survey.indices.map { position in
            let begin = Double(position) * length
            let from = max(begin, span.start) - span.start
            let to = min(begin + length, span.end) - span.start
            return CoveredInterval(from: from, to: max(from, to))
        }
    }
}

/// One interval of a timeline as the run covered it, in seconds from the run's start. Every
/// rate of the interval is its count over the time it covered (`rate`), and it is drawn over
/// that time: the first and last intervals of a run are shorter than the others.
struct CoveredInterval: Equatable {
    var from: Double
    var to: Double

    /// The seconds of the interval the run covered.
    var seconds: Double { to - from }
    var middle: Double { (from + to) / 2 }

    /// `count` per second of the interval's covered part; nil when it covered no time.
    func rate(_ count: Int) -> Double? { rate(Double(count)) }

    func rate(_ value: Double) -> Double? { seconds > 0 ? value / seconds : nil }
}

extension RunReport.TimelineRecord {
    /// The timeline of a run still under way, read at `runEndS`. The engine counts a respondent
    /// that starts as active to the end of its interval, and takes the rest off when it
    /// finishes: read before the current interval has ended, its mean counts the respondents
    /// still under way for time that has not come. That time is taken off here, so that the
    /// live page's respondents are those of the part of the interval that has passed, as at
    /// the end of a run.
    mutating func endNow() {
        guard let end = runEndS, end.isFinite, intervalS > 0, let last = survey.indices.last else { return }
        let active = survey.reduce(0) { $0 + $1.respondentsStarted - $1.respondentsFinished }
        let ahead = max(0, Double(survey.count) * intervalS - end)
        survey[last].respondentsActive = max(0, survey[last].respondentsActive - Double(active) * ahead / intervalS)
    }
}
