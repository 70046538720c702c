import Foundation
import SurveyEngine
import SurveyJourney
import SurveyMetrics

/// The JSON report: the source of truth every other format is rendered from. Its field names
/// are the `survey-bot.report/1` format, documented in docs/report-format.md: old reports and
/// the tools that read them depend on them, so they do not change, and a new shape takes a
/// new schema version. Latencies are in milliseconds; keys are written sorted so that two
/// reports diff cleanly.
struct RunReport: Codable, Sendable, Equatable {
    static let schemaVersion = "survey-bot.report/1"

    var schema: String
    var tool: Tool
    var name: String
    var passed: Bool
    var interrupted: Bool
    /// What ended the run: `completed`, `duration`, `signal` (`StopCause`) or `threshold` (an
    /// `abort` threshold failed during the run). Absent from reports of versions before it.
    var stoppedBy: String?
    /// With `stopped_by: threshold`: the threshold that stopped the run, as the plan wrote it.
    var stoppedByThreshold: String? = nil
    var target: String
    var startedAt: String
    var endedAt: String
    var durationS: Double
    /// The run this report is part of: given with `--run-id`, or generated; every shard of a
    /// run carries the same. Absent from reports of versions before it.
    var runID: String?
    /// `Plan.digest` of the plan as run; the same for every shard of a run.
    var planDigest: String?
    /// Which shard of its run this report is: `1/1` for a whole run or a complete merge, absent
    /// for a partial merge.
    var shard: ShardRecord?
    /// Set by `merge` only: whether shards were missing (`--allow-partial`), which, and which
    /// were merged.
    var partial: Bool?
    var missingShards: [Int]?
    var mergedShards: [Int]?
    var seed: UInt64
    /// Each step's figures, by the step's name (`endpoints` in the JSON: the name steps had
    /// before there were journeys of them, kept by the machine formats).
    var stepReports: [String: StepReport]
    /// The steps' names in the journey's order, the order every format lists them in. Absent
    /// from reports of versions before it (`stepNames` orders those).
    var steps: [String]? = nil
    var respondents: Respondents
    var answers: Answers
    var throughput: Throughput
    /// The run over time, interval by interval; absent when the plan turned it off
    /// (`report.interval: off`) and from reports of versions before it.
    var timeline: TimelineRecord? = nil
    var thresholds: [ThresholdResult]
    var plan: PlanRecord
    /// Present when attempts could not be made because this process ran out of descriptors or
    /// local ports: such a run does not measure the server, and does not pass.
    var localResource: LocalResource? = nil
    /// With `run --raw`: the attempts' lines written, and those dropped because the disk could
    /// not keep up (or a write failed). Absent without `--raw`.
    var raw: Raw? = nil
    /// How late the tool itself was with what it had set a time for: open-model arrivals and
    /// think, pace and retry waits. Absent when it set no time (a closed run without think
    /// time or retries), and from reports of versions before it.
    var lag: Lag? = nil
    /// What the survey saw, question by question (`RunReport+Questions`). Absent from reports of
    /// versions before it.
    var questions: Questions? = nil

    enum CodingKeys: String, CodingKey {
        case schema, tool, name, passed, interrupted, target, shard, seed, steps, respondents, answers, throughput, thresholds
        case stepReports = "endpoints"
        case plan
        case timeline
        case raw, lag, questions
        case localResource = "local_resource"
        case stoppedBy = "stopped_by"
        case stoppedByThreshold = "stopped_by_threshold"
        case partial
        case runID = "run_id"
        case planDigest = "plan_digest"
        case missingShards = "missing_shards"
        case mergedShards = "merged_shards"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case durationS = "duration_s"
    }

    /// What `--raw` wrote: `lines + dropped` is every attempt sent.
    struct Raw: Codable, Sendable, Equatable {
        var lines: Int
        var dropped: Int
    }

    struct Tool: Codable, Sendable, Equatable {
        var name: String
        var version: String
    }

    /// Attempts this process could not make for want of descriptors or local ports, and the
    /// limit on open files it ran with.
    struct LocalResource: Codable, Sendable, Equatable {
        /// Attempts of every step not made (`local_resource`), in no step's `attempts`.
        var attempts: Int
        /// With `target: builtin`: times the in-process server found no descriptor for a
        /// connection waiting to be accepted, whose answer then came late or not at all.
        var builtinServerAcceptFailures: Int?
        /// The soft and hard `RLIMIT_NOFILE` (`ulimit -n`) at the end of the run, when known.
        var openFilesLimit: UInt64?
        var openFilesHardLimit: UInt64?

        enum CodingKeys: String, CodingKey {
            case attempts
            case builtinServerAcceptFailures = "builtin_server_accept_failures"
            case openFilesLimit = "open_files_limit"
            case openFilesHardLimit = "open_files_hard_limit"
        }
    }

    /// The tool's own lateness, apart from the server's service time: how late each open-model
    /// respondent started after its arrival's time in the schedule (`arrivals_ms`), and how late
    /// each think, pace or retry wait ended (`timers_ms`). A p99 of either above `limit_ms`
    /// (the plan's `report.lag_limit`) means the tool could not keep up with its own schedule:
    /// every format says so (`ReportWording.lagWarning`).
    struct Lag: Codable, Sendable, Equatable {
        var limitMs: Double
        var arrivalsMs: LatencySummary?
        var arrivalsHistogram: HistogramRecord?
        var timersMs: LatencySummary?
        var timersHistogram: HistogramRecord?

        enum CodingKeys: String, CodingKey {
            case limitMs = "limit_ms"
            case arrivalsMs = "arrivals_ms"
            case arrivalsHistogram = "arrivals_histogram"
            case timersMs = "timers_ms"
            case timersHistogram = "timers_histogram"
        }
    }

    struct StepReport: Codable, Sendable, Equatable {
        var calls: Int
        /// HTTP attempts sent.
        var attempts: Int
        /// Attempts not made because this process ran out of descriptors or local ports: in none
        /// of the other counts. Absent from reports of versions before it.
        var localResource: Int?
        var succeeded: Int
        var failed: Int
        var firstTrySucceeded: Int
        var retries: Int
        var retriesDenied: Int
        /// Retries not made: the step is not idempotent and the attempt's request may have
        /// reached the server. Absent from reports of versions before it.
        var retriesUnsafe: Int?
        var failedAttempts: Int
        /// Per attempt, by status code.
        var status: [String: Int]
        /// Per attempt, by error kind, with `http_3xx` / `http_4xx` / `http_5xx` for failed statuses.
        var errors: [String: Int]
        /// The failed attempts by status code, when they are not every attempt outside 2xx: a
        /// step whose `expect` accepts a 404, or refuses a 202. Absent otherwise.
        var failedStatus: [String: Int]? = nil
        /// Per succeeded attempt, from its intended start: the latency corrected for
        /// coordinated omission, equal to the service time in the closed model (`latency_ms`);
        /// `null` when no attempt succeeded. Reports without `failed_histogram` kept failed
        /// attempts here too (`latencyCoversFailures`).
        @NullWhenAbsent var correctedLatencyMs: LatencySummary? = nil
        /// Per succeeded attempt, from its start to its end (`service_latency_ms`); `null` when
        /// no attempt succeeded.
        @NullWhenAbsent var serviceTimeMs: LatencySummary? = nil
        var correctedHistogram: HistogramRecord
        var serviceTimeHistogram: HistogramRecord
        /// Per failed attempt that was timed, its time to fail from its intended start
        /// (`failed_latency_ms`); absent when none was.
        var failedLatencyMs: LatencySummary? = nil
        /// The histogram behind `failedLatencyMs`: written by every report that keeps failed
        /// attempts out of the latency, empty when none failed; absent from reports of
        /// versions before it.
        var failedHistogram: HistogramRecord? = nil
        /// New and reused connections, with connect and TLS handshake times; absent from reports
        /// of versions before it.
        var connections: Connections?
        /// For error kinds with more to say than their name, the first reason seen, by kind:
        /// `"tls_certificate": "certificate has expired"`; for a class of failed status, the
        /// first status that gave a reason and the server's (an excerpt of its body, secrets
        /// masked): `"http_4xx": "401: {\"error\":\"Invalid token\"}"`.
        var errorSamples: [String: String]?

        enum CodingKeys: String, CodingKey {
            case calls, attempts, succeeded, failed, retries, status, errors, connections
            case localResource = "local_resource"
            case correctedHistogram = "histogram"
            case errorSamples = "error_samples"
            case firstTrySucceeded = "first_try_succeeded"
            case retriesDenied = "retries_denied"
            case retriesUnsafe = "retries_unsafe"
            case failedAttempts = "failed_attempts"
            case failedStatus = "failed_status"
            case correctedLatencyMs = "latency_ms"
            case serviceTimeMs = "service_latency_ms"
            case serviceTimeHistogram = "service_histogram"
            case failedLatencyMs = "failed_latency_ms"
            case failedHistogram = "failed_histogram"
        }

        /// Whether `latency_ms` and `histogram` count failed attempts too: a report of a
        /// version before `failed_histogram`, of a step in which attempts failed.
        var latencyCoversFailures: Bool { failedHistogram == nil && failedAttempts > 0 }
    }

    /// How a step's attempts got their connections: opened for them (how long the connect
    /// and the TLS handshake took, what TLS agreed) or kept alive from earlier ones.
    struct Connections: Codable, Sendable, Equatable {
        var new: Int
        var reused: Int
        /// The TCP connect of each new connection (k6's `http_req_connecting`).
        var connectMs: LatencySummary?
        var connectHistogram: HistogramRecord?
        /// The TLS handshake of each new https connection (k6's `http_req_tls_handshaking`).
        var tlsHandshakeMs: LatencySummary?
        var tlsHandshakeHistogram: HistogramRecord?
        /// New https connections by protocol version and cipher suite.
        var tls: [String: Int]?
        /// New https connections that resumed an earlier session.
        var tlsResumed: Int?
        /// Requests sent again on a new connection because their kept-alive one was found
        /// closed by the server before any byte of a response (counted in `new`, not as attempts).
        var reconnects: Int?
        /// Attempts and the connections they opened, by protocol (`http/1.1`, `h2`, `h2c`).
        /// Absent from reports of versions before HTTP/2.
        var protocols: [String: ProtocolUse]?

        enum CodingKeys: String, CodingKey {
            case new, reused, tls, reconnects, protocols
            case tlsResumed = "tls_resumed"
            case connectMs = "connect_ms"
            case connectHistogram = "connect_histogram"
            case tlsHandshakeMs = "tls_handshake_ms"
            case tlsHandshakeHistogram = "tls_handshake_histogram"
        }
    }

    /// How much a step used one protocol.
    struct ProtocolUse: Codable, Sendable, Equatable {
        var attempts: Int
        var connections: Int
    }

    struct LatencySummary: Codable, Sendable, Equatable {
        var min: Double
        var mean: Double
        var p50: Double
        var p90: Double
        var p95: Double
        var p99: Double
        var p999: Double
        var max: Double
    }

    /// A histogram in compact form: non-empty buckets as `[index, count]` (nanosecond buckets of
    /// `Histogram`), with the exact sum, min and max.
    struct HistogramRecord: Codable, Sendable, Equatable {
        var unit: String
        var count: UInt64
        var sum: Double
        var min: UInt64
        var max: UInt64
        var buckets: [[UInt64]]
    }

    struct Respondents: Codable, Sendable, Equatable {
        var started: Int
        var completed: Int
        var finishedWithUnanswered: Int
        var abandoned: Int
        var abandonedReasons: [String: Int]
        var dropped: Int
        /// Still under way when the duration expired. Absent from reports of versions before it.
        var cutShort: Int?

        enum CodingKeys: String, CodingKey {
            case started, completed, abandoned, dropped
            case cutShort = "cut_short"
            case finishedWithUnanswered = "finished_with_unanswered"
            case abandonedReasons = "abandoned_reasons"
        }
    }

    /// The plan as run: overrides applied, secrets redacted.
    struct PlanRecord: Codable, Sendable, Equatable {
        var name: String
        var target: String
        var load: String
        var concurrency: Int
        var duration: String?
        /// With a duration: how long attempts in flight may go on after it.
        var grace: String?
        var timeout: String
        var connectTimeout: String
        var think: String
        /// The plan's `pace`, when it has one.
        var pace: String?
        /// `false` when the plan turned the cookie jars off; absent when they were on.
        var cookies: Bool?
        var order: String
        var api: [String: String]
        var headers: [String: String]
        var answers: [String: [String]]?
        var retry: [String: String]
        var builtin: String?
        var insecure: Bool
        /// The data feed: its file as shown, its rows and their order; absent without one.
        var data: String?
        /// The proxy the run went through, credentials as `***` (`ProxyRoute.shown`); absent
        /// when it went straight to the target, and in reports of versions before proxies.
        var proxy: String? = nil

        enum CodingKeys: String, CodingKey {
            case name, target, load, concurrency, duration, grace, timeout, think, pace, cookies, order, api, headers, answers, retry,
                builtin
            case insecure, data, proxy
            case connectTimeout = "connect_timeout"
        }
    }

    /// The report as JSON text: keys sorted, one member a line, arrays of numbers (histogram
    /// buckets, timelines) on one line, a final newline. A partial merge starts with `partial`
    /// and `missing_shards`, so that its first lines say so. Throws, naming the field, when a
    /// number is not finite: a report is never written empty.
    func jsonText() throws(JSONEncodingError) -> String {
        try JSONValue.text(of: self, first: partial == true ? ["partial", "missing_shards"] : [])
    }
}

extension RunReport.LatencySummary {
    /// The summary of `histogram`, or nil when it holds no samples: a figure with no samples
    /// is `null`, not 0.
    static func of(_ histogram: Histogram) -> Self? {
        histogram.count == 0 ? nil : Self(histogram)
    }

    init(_ histogram: Histogram) {
        func ms(_ nanoseconds: UInt64) -> Double { milliseconds(Double(nanoseconds)) }
        min = ms(histogram.min)
        mean = milliseconds(histogram.mean)
        p50 = ms(histogram.value(atPercentile: 50))
        p90 = ms(histogram.value(atPercentile: 90))
        p95 = ms(histogram.value(atPercentile: 95))
        p99 = ms(histogram.value(atPercentile: 99))
        p999 = ms(histogram.value(atPercentile: 99.9))
        max = ms(histogram.max)
    }

    /// Every figure of the summary, for checks that hold for all of them.
    var values: [Double] { [min, mean, p50, p90, p95, p99, p999, max] }

    /// The value of a latency metric by name (`p95`, `max`, …).
    func value(_ metric: Threshold.Metric) -> Double? {
        switch metric {
        case .min: min
        case .mean: mean
        case .p50: p50
        case .p90: p90
        case .p95: p95
        case .p99: p99
        case .p999: p999
        case .max: max
        default: nil
        }
    }
}

/// Nanoseconds as milliseconds rounded to the microsecond: enough for latencies, and short.
func milliseconds(_ nanoseconds: Double) -> Double {
    (nanoseconds / 1_000).rounded() / 1_000
}

extension RunReport.HistogramRecord {
    init(_ histogram: Histogram) {
        unit = "ns"
        count = histogram.count
        sum = histogram.sum
        min = histogram.min
        max = histogram.max
        buckets = histogram.sparseBuckets.map { [UInt64($0.index), $0.count] }
    }

    /// The histogram back; nil when the record is inconsistent.
    var histogram: Histogram? {
        guard unit == "ns", buckets.allSatisfy({ $0.count == 2 }) else { return nil }
        let parts = buckets.map { (index: Int(clamping: $0[0]), count: $0[1]) }
        guard let histogram = Histogram(sparseBuckets: parts, sum: sum, min: min, max: max), histogram.count == count else { return nil }
        return histogram
    }
}
