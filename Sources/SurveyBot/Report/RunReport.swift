import Foundation
import SurveyEngine

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
    var target: String
    var startedAt: String
    var endedAt: String
    var durationS: Double
    /// `i/n` for a shard's report, absent for a whole run (or a merge of every shard).
    var shard: String?
    var seed: UInt64
    var endpoints: [String: EndpointReport]
    var respondents: Respondents
    var answers: Answers
    var throughput: Throughput
    var thresholds: [ThresholdResult]
    var plan: PlanRecord

    enum CodingKeys: String, CodingKey {
        case schema, tool, name, passed, interrupted, target, shard, seed, endpoints, respondents, answers, throughput, thresholds, plan
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case durationS = "duration_s"
    }

    struct Tool: Codable, Sendable, Equatable {
        var name: String
        var version: String
    }

    struct EndpointReport: Codable, Sendable, Equatable {
        var calls: Int
        var attempts: Int
        var succeeded: Int
        var failed: Int
        var firstTrySucceeded: Int
        var retries: Int
        var retriesDenied: Int
        var failedAttempts: Int
        /// Per attempt, by status code.
        var status: [String: Int]
        /// Per attempt, by error kind, with `http_4xx` / `http_5xx` for failed statuses.
        var errors: [String: Int]
        var latencyMs: LatencySummary
        var serviceLatencyMs: LatencySummary
        var histogram: HistogramRecord
        var serviceHistogram: HistogramRecord

        enum CodingKeys: String, CodingKey {
            case calls, attempts, succeeded, failed, retries, status, errors, histogram
            case firstTrySucceeded = "first_try_succeeded"
            case retriesDenied = "retries_denied"
            case failedAttempts = "failed_attempts"
            case latencyMs = "latency_ms"
            case serviceLatencyMs = "service_latency_ms"
            case serviceHistogram = "service_histogram"
        }
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

        enum CodingKeys: String, CodingKey {
            case started, completed, abandoned, dropped
            case finishedWithUnanswered = "finished_with_unanswered"
            case abandonedReasons = "abandoned_reasons"
        }
    }

    struct Answers: Codable, Sendable, Equatable {
        var submitted: Int
        var unanswered: Int
        /// Questions the plan had no answer for.
        var missing: Int
    }

    struct Throughput: Codable, Sendable, Equatable {
        var attemptsPerS: Double
        /// Attempts started in each second of the run, and how many of them failed.
        var timeline: [Int]
        var failuresTimeline: [Int]

        enum CodingKeys: String, CodingKey {
            case timeline
            case attemptsPerS = "attempts_per_s"
            case failuresTimeline = "failures_timeline"
        }
    }

    struct ThresholdResult: Codable, Sendable, Equatable {
        var name: String
        var op: String
        /// In the metric's unit: milliseconds, a fraction (0.95), a count, or per second.
        var limit: Double
        /// Nil when there was nothing to measure (no calls).
        var actual: Double?
        var passed: Bool
        /// As written in the plan, like `< 300ms`.
        var text: String
    }

    /// The plan as run: overrides applied, secrets redacted.
    struct PlanRecord: Codable, Sendable, Equatable {
        var name: String
        var target: String
        var load: String
        var concurrency: Int
        var duration: String?
        var timeout: String
        var connectTimeout: String
        var think: String
        var order: String
        var api: [String: String]
        var headers: [String: String]
        var answers: [String: [String]]?
        var retry: [String: String]
        var builtin: String?
        var insecure: Bool

        enum CodingKeys: String, CodingKey {
            case name, target, load, concurrency, duration, timeout, think, order, api, headers, answers, retry, builtin, insecure
            case connectTimeout = "connect_timeout"
        }
    }

    /// The report as JSON text: pretty-printed, keys sorted, a final newline.
    func jsonText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return Self.compacted(String(decoding: data, as: UTF8.self)) + "\n"
    }

    /// Puts arrays of plain numbers (histogram buckets, timelines) and empty objects on one line:
    /// the pretty printer gives every number its own line.
    static func compacted(_ text: String) -> String {
        var lines: [Substring] = []
        var pending: [Substring] = []
        var collecting = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if collecting {
                if trimmed == "]" || trimmed == "]," {
                    let opening = pending[0]
                    let items = pending.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                    lines.append(opening + items + trimmed)
                    pending = []
                    collecting = false
                    continue
                } else if trimmed.first.map({ $0.isNumber || $0 == "-" }) ?? false {
                    pending.append(line)
                    continue
                }
                // Not an array of numbers: keep its lines as they were.
                lines.append(contentsOf: pending)
                pending = []
                collecting = false
            }
            if trimmed.hasSuffix("[") {
                pending = [line]
                collecting = true
                continue
            }
            lines.append(line)
        }
        lines.append(contentsOf: pending)
        var result = lines.joined(separator: "\n")
        while let range = result.range(of: "{\n\n", options: []) {
            var end = range.upperBound
            while end < result.endIndex, result[end] == " " { end = result.index(after: end) }
            guard end < result.endIndex, result[end] == "}" else { break }
            result.replaceSubrange(range.lowerBound...end, with: "{}")
        }
        return result
    }

    /// Why a file is not a report this version can read.
    struct ReadError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Reads a report file, refusing other schemas with a clear message.
    static func read(path: String) throws(ReadError) -> RunReport {
        guard let data = FileManager.default.contents(atPath: path) else { throw ReadError(description: "\(path): cannot read the file") }
        guard case .success(let value) = JSONValue.parse(data) else { throw ReadError(description: "\(path): not JSON") }
        guard case .string(let schema)? = value["schema"] else {
            throw ReadError(description: "\(path): not a survey-bot report (no \"schema\" field)")
        }
        guard schema == schemaVersion else {
            throw ReadError(description: "\(path): report schema '\(schema)' is not '\(schemaVersion)', which this version reads")
        }
        let report: RunReport
        do {
            report = try JSONDecoder().decode(RunReport.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ReadError(description: "\(path): missing field '\(Self.path(context.codingPath + [key]))'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ReadError(description: "\(path): wrong type at '\(Self.path(context.codingPath))'")
        } catch let DecodingError.valueNotFound(_, context) {
            throw ReadError(description: "\(path): null at '\(Self.path(context.codingPath))'")
        } catch {
            throw ReadError(description: "\(path): not a valid report: \(error)")
        }
        if let problem = report.rangeProblem() { throw ReadError(description: "\(path): \(problem)") }
        return report
    }

    /// The largest count a report may hold: beyond it, sums could overflow, and no run gets there.
    static let maxCount = 1 << 50

    /// The first field whose value no run could have produced (negative or absurd counts,
    /// non-finite numbers), or nil.
    func rangeProblem() -> String? {
        func count(_ value: Int, _ field: String) -> String? {
            (0...Self.maxCount).contains(value) ? nil : "'\(field)' is \(value), out of range"
        }
        func number(_ value: Double, _ field: String) -> String? {
            value.isFinite && value >= 0 && value < 1e15 ? nil : "'\(field)' is \(value), out of range"
        }
        var problems: [String?] = [
            number(durationS, "duration_s"), number(throughput.attemptsPerS, "throughput.attempts_per_s"),
            count(respondents.started, "respondents.started"), count(respondents.completed, "respondents.completed"),
            count(respondents.finishedWithUnanswered, "respondents.finished_with_unanswered"),
            count(respondents.abandoned, "respondents.abandoned"), count(respondents.dropped, "respondents.dropped"),
            count(answers.submitted, "answers.submitted"), count(answers.unanswered, "answers.unanswered"),
            count(answers.missing, "answers.missing"),
        ]
        problems += respondents.abandonedReasons.map { count($0.value, "respondents.abandoned_reasons.\($0.key)") }
        if throughput.timeline.count != throughput.failuresTimeline.count {
            problems.append("'throughput.timeline' and 'throughput.failures_timeline' differ in length")
        }
        problems += throughput.timeline.map { count($0, "throughput.timeline") }
        problems += throughput.failuresTimeline.map { count($0, "throughput.failures_timeline") }
        for (name, endpoint) in endpoints.sorted(by: { $0.key < $1.key }) {
            let prefix = "endpoints.\(name)"
            problems += [
                count(endpoint.calls, "\(prefix).calls"), count(endpoint.attempts, "\(prefix).attempts"),
                count(endpoint.succeeded, "\(prefix).succeeded"), count(endpoint.failed, "\(prefix).failed"),
                count(endpoint.firstTrySucceeded, "\(prefix).first_try_succeeded"),
                count(endpoint.retriesDenied, "\(prefix).retries_denied"), count(endpoint.failedAttempts, "\(prefix).failed_attempts"),
            ]
            problems += endpoint.status.map { count($0.value, "\(prefix).status.\($0.key)") }
            problems += endpoint.errors.map { count($0.value, "\(prefix).errors.\($0.key)") }
            for (summary, field) in [(endpoint.latencyMs, "latency_ms"), (endpoint.serviceLatencyMs, "service_latency_ms")] {
                problems += [summary.min, summary.mean, summary.p50, summary.p90, summary.p95, summary.p99, summary.p999, summary.max].map {
                    number($0, "\(prefix).\(field)")
                }
            }
            for (histogram, field) in [(endpoint.histogram, "histogram"), (endpoint.serviceHistogram, "service_histogram")] {
                if histogram.histogram == nil || histogram.count > UInt64(Self.maxCount) || histogram.max > UInt64(Self.maxCount) {
                    problems.append("'\(prefix).\(field)' is not a valid histogram")
                }
            }
        }
        for threshold in thresholds {
            problems.append(number(abs(threshold.limit), "thresholds.\(threshold.name).limit"))
            if let actual = threshold.actual { problems.append(number(abs(actual), "thresholds.\(threshold.name).actual")) }
        }
        return problems.compactMap { $0 }.first
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}

extension RunReport.LatencySummary {
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
