import SurveyEngine
import SurveyMetrics

extension RunReport.Lag {
    /// The record of a run's lag histograms against `limit`; nil when the run set no time for
    /// anything (a closed run without think time, pace or retries).
    init?(arrivals: Histogram, timers: Histogram, limit: Duration) {
        self.init(arrivals: arrivals, timers: timers, limitMs: milliseconds(limit.seconds * 1e9))
    }

    /// The same with the limit in milliseconds, as a report holds it: any value a report may
    /// hold, though one past 292 years is no `Duration`.
    private init?(arrivals: Histogram, timers: Histogram, limitMs: Double) {
        guard arrivals.count > 0 || timers.count > 0 else { return nil }
        self.init(
            limitMs: limitMs,
            arrivalsMs: .of(arrivals), arrivalsHistogram: arrivals.count > 0 ? RunReport.HistogramRecord(arrivals) : nil,
            timersMs: .of(timers), timersHistogram: timers.count > 0 ? RunReport.HistogramRecord(timers) : nil)
    }

    /// What was later than the limit at p99: `arrivals`, `timers`, or both, with each p99; empty
    /// when the tool kept up.
    var overLimit: [(what: String, p99: Double)] {
        [("arrivals", arrivalsMs), ("timers", timersMs)].compactMap { what, summary in
            guard let summary, summary.p99 > limitMs else { return nil }
            return (what, summary.p99)
        }
    }

    /// The lag of reports of one run's shards: histograms merged, the limit of the first; nil
    /// when none has one. Throws naming the file whose histograms are damaged.
    static func merged(_ parts: [(path: String, report: RunReport)]) throws(RunReport.MergeError) -> Self? {
        var arrivals = Histogram()
        var timers = Histogram()
        var limit: Double?
        for (path, report) in parts {
            guard let lag = report.lag else { continue }
            limit = limit ?? lag.limitMs
            func add(_ record: RunReport.HistogramRecord?, to total: inout Histogram) throws(RunReport.MergeError) {
                guard let record else { return }
                guard let histogram = record.histogram else {
                    throw RunReport.MergeError(description: "\(path): the lag histogram is damaged")
                }
                total.merge(histogram)
            }
            try add(lag.arrivalsHistogram, to: &arrivals)
            try add(lag.timersHistogram, to: &timers)
        }
        guard let limit else { return nil }
        return Self(arrivals: arrivals, timers: timers, limitMs: limit)
    }
}

extension ReportWording {
    /// `survey-bot itself fell behind: arrivals started 23.4 ms late at p99 (limit 10 ms): its
    /// own lateness, counted in the latencies, not the server's; add threads (--threads) or
    /// shards (--shard)`; nil when the tool kept up.
    static func lagWarning(_ report: RunReport) -> String? {
        guard let lag = report.lag else { return nil }
        let late = lag.overLimit
        guard !late.isEmpty else { return nil }
        let what = late.map { what, p99 in
            (what == "arrivals" ? "arrivals started " : "think, pace and retry waits ended ") + "\(ms(p99)) late at p99"
        }
        return "survey-bot itself fell behind: " + what.joined(separator: " and ") + " (limit \(ms(lag.limitMs))): "
            + "its own lateness, not the server's, and counted in the latencies of the open model; "
            + "give it more threads (--threads) or split the load into shards (--shard)"
    }

    /// `arrivals p50 0.021 ms, p99 0.310 ms; timers p50 0.054 ms, p99 0.801 ms`: the lag line;
    /// nil when the run set no time for anything.
    static func lag(_ report: RunReport) -> String? {
        guard let lag = report.lag else { return nil }
        let parts = [("arrivals", lag.arrivalsMs), ("timers", lag.timersMs)].compactMap { what, summary in
            summary.map { "\(what) p50 \(ms($0.p50)), p99 \(ms($0.p99)), max \(ms($0.max))" }
        }
        return parts.joined(separator: "; ") + " (limit \(ms(lag.limitMs)) at p99)"
    }

    private static func ms(_ value: Double) -> String { Readable.ms(value) }
}
