import Foundation
import SurveyEngine

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
        /// By step name, one point per interval, the first at `t` 0.
        var endpoints: [String: [StepPoint]]
        /// The whole survey: one point per interval.
        var survey: [SurveyPoint]

        enum CodingKeys: String, CodingKey {
            case start, endpoints, survey
            case intervalS = "interval_s"
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

            enum CodingKeys: String, CodingKey {
                case t, dropped
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

extension RunReport.TimelineRecord {
    /// The record of an engine timeline; nil when it is off.
    init?(_ timeline: Timeline) {
        guard timeline.isEnabled else { return nil }
        // Every step of the run has a line, as in the report's endpoints, with or without attempts.
        var grid = TimelineGrid(interval: timeline.interval, first: timeline.start / timeline.interval, steps: timeline.steps.map(\.name))
        let active = timeline.respondentsActive
        for (position, point) in timeline.points.enumerated() {
            var endpoints: [String: TimelineGrid.StepBin] = [:]
            for step in timeline.steps {
                let part = point[step]
                var errors: [String: Int] = [:]
                for (status, count) in part.failedStatuses { errors["http_\(status / 100)xx", default: 0] += count }
                for (kind, count) in part.errors { errors[kind.rawValue, default: 0] += count }
                endpoints[step.name] = TimelineGrid.StepBin(
                    attempts: part.attempts, succeeded: part.succeeded, failed: part.failed, retries: part.retries, errors: errors,
                    latency: part.latency)
            }
            grid.bins.append(
                TimelineGrid.Bin(
                    endpoints: endpoints, active: active[position], started: point.respondentsStarted,
                    finished: point.respondentsFinished, dropped: point.dropped))
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
        var grid = TimelineGrid(interval: interval, first: first, steps: endpoints.keys.sorted())
        let count = survey.count
        guard endpoints.values.allSatisfy({ $0.count == count }) else { return nil }
        for position in 0..<count {
            var bins: [String: TimelineGrid.StepBin] = [:]
            for (name, points) in endpoints {
                let point = points[position]
                var latency = SparseHistogram()
                if let record = point.histogram {
                    guard record.buckets.count % 2 == 0 else { return nil }
                    let pairs = stride(from: 0, to: record.buckets.count, by: 2).map {
                        (index: Int(clamping: record.buckets[$0]), count: record.buckets[$0 + 1])
                    }
                    guard let histogram = Histogram(sparseBuckets: pairs, sum: record.sum, min: record.min, max: record.max),
                        histogram.count == record.count
                    else { return nil }
                    latency = SparseHistogram(histogram)
                }
                bins[name] = TimelineGrid.StepBin(
                    attempts: point.attempts, succeeded: point.succeeded, failed: point.failed, retries: point.retries,
                    errors: point.errors, latency: latency)
            }
            let part = survey[position]
            grid.bins.append(
                TimelineGrid.Bin(
                    endpoints: bins, active: part.respondentsActive, started: part.respondentsStarted, finished: part.respondentsFinished,
                    dropped: part.dropped))
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

    /// The factor turning a count per interval into a rate per second: 1 / `interval_s`,
    /// guarded (0 for a record without a sane interval).
    var perSecond: Double { intervalS.isFinite && intervalS > 0 ? 1 / intervalS : 0 }

    /// For each interval, the share of it the run covered: the first and last intervals of the
    /// grid begin before the run's start and end after its end, and a rate over the whole of
    /// one would read low. At least ¼, so that a sliver of an interval (a few attempts in a
    /// millisecond) does not read as a burst; 1 when the run's times cannot be read.
    func coverage(startedAt: String, endedAt: String) -> [Double] {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        guard let (interval, first) = gridPosition, let started = try? Date(startedAt, strategy: style),
            let ended = try? Date(endedAt, strategy: style)
        else { return survey.map { _ in 1 } }
        let length = Double(interval) / 1e9
        let runStart = started.timeIntervalSince1970
        let runEnd = ended.timeIntervalSince1970
        return survey.indices.map { position in
            let start = Double(first + UInt64(position)) * length
            let covered = min(start + length, runEnd) - max(start, runStart)
            return min(1, max(0.25, covered / length))
        }
    }

    /// For each interval, the factor turning its counts into rates per second over the part of
    /// it the run covered (`coverage`).
    func perSecond(startedAt: String, endedAt: String) -> [Double] {
        coverage(startedAt: startedAt, endedAt: endedAt).map { perSecond / $0 }
    }
}
