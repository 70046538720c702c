import Foundation
import SurveyEngine
import SurveyMetrics

/// The report as Prometheus metrics, in the text exposition format (version 0.0.4) that
/// node_exporter's textfile collector reads and Prometheus scrapes: `# HELP` and `# TYPE` for
/// every family, label values escaped, counters named `_total`, latency as a histogram in
/// seconds, and a closing `# EOF` comment that tells a whole file from a cut one. The names and
/// labels are those of docs/exports.md.
///
/// OpenMetrics proper would name a counter's family without `_total`, which the textfile
/// collector's parser does not understand (node_exporter#1988); the text format is the one
/// both read the same.
enum PrometheusReport: ReportRenderer {
    /// The `le` bounds of the latency histograms, in seconds: 1 ms to 60 s, by 1-2.5-5 steps.
    static let latencyBounds: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
    ]

    /// `Content-Type` of the text this renders, for `/metrics`.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func render(_ report: RunReport) -> String {
        render(report, live: false)
    }

    /// The metrics of `report`. `live` figures are counts so far of a run still under way:
    /// they have no verdict, so `survey_bot_passed` and the thresholds are left out.
    static func render(_ report: RunReport, live: Bool) -> String {
        var text = Exposition(common: identity(report))
        if let missing = report.missingShardsText {
            // A comment, which parsers skip: the first line of every format says a merge is partial.
            text.lines.append("# PARTIAL merge, \(missing): the figures lack whole shards")
        }
        text.family(
            "survey_bot_run_info", .gauge, "The run: its id, target and survey-bot's version; always 1.",
            [([("target", report.target), ("version", report.tool.version)], "1")])
        if !live {
            text.family(
                "survey_bot_passed", .gauge, "1 when the run passed: every threshold held, nothing was missing.",
                value: report.passed ? "1" : "0")
            text.family(
                "survey_bot_threshold_passed", .gauge, "1 when the threshold held, 0 when it failed.",
                report.thresholds.map { ([("threshold", $0.threshold.description)], $0.passed ? "1" : "0") })
        }
        text.family(
            "survey_bot_interrupted", .gauge, "1 when a signal stopped the run early: its figures are partial.",
            value: report.interrupted ? "1" : "0")
        if let started = Self.unixSeconds(report.startedAt) {
            text.family(
                "survey_bot_start_time_seconds", .gauge, "When the run began, in seconds since the Unix epoch.", value: number(started))
        }
        text.family("survey_bot_duration_seconds", .gauge, "How long the run took (live: so far).", value: number(report.durationS))

        let steps = report.stepNames.compactMap { name in report.stepReports[name].map { (name, $0) } }
        var attempts: [Sample] = []
        var calls: [Sample] = []
        var retries: [Sample] = []
        var denied: [Sample] = []
        var unsafe: [Sample] = []
        var local: [Sample] = []
        for (name, step) in steps {
            for (outcome, count) in outcomes(step) { attempts.append(([("endpoint", name), ("outcome", outcome)], String(count))) }
            calls.append(([("endpoint", name), ("result", "succeeded")], String(step.succeeded)))
            calls.append(([("endpoint", name), ("result", "failed")], String(step.failed)))
            retries.append(([("endpoint", name)], String(step.retries)))
            denied.append(([("endpoint", name)], String(step.retriesDenied)))
            unsafe.append(([("endpoint", name)], String(step.retriesUnsafe ?? 0)))
            local.append(([("endpoint", name)], String(step.localResource ?? 0)))
        }
        text.family(
            "survey_bot_attempts_total", .counter, "HTTP attempts sent, by endpoint and outcome: the status code, or the error kind.",
            attempts)
        text.family("survey_bot_calls_total", .counter, "Logical calls, retries included, by how they finally ended.", calls)
        text.family("survey_bot_retries_total", .counter, "Attempts beyond the first of each call.", retries)
        text.family("survey_bot_retries_denied_total", .counter, "Retries the run's retry budget refused.", denied)
        text.family(
            "survey_bot_retries_unsafe_total", .counter,
            "Retries not made: the step is not idempotent and the request may have reached the server.", unsafe)
        text.family(
            "survey_bot_local_resource_total", .counter,
            "Attempts not made because survey-bot ran out of descriptors or local ports (not sent).", local)

        var latency: [Sample] = []
        var timeToFail: [Sample] = []
        for (name, step) in steps {
            latency += histogramSamples(step.correctedHistogram.histogram ?? Histogram(), endpoint: name)
            // A report of a version before failed attempts were kept apart has none.
            if let failed = step.failedHistogram?.histogram { timeToFail += histogramSamples(failed, endpoint: name) }
        }
        let counted = report.stepReports.values.contains(where: \.latencyCoversFailures)
        text.family(
            "survey_bot_latency_seconds", .histogram,
            counted
                ? "Latency of each attempt, failed ones too (a report of an earlier version), from its intended start, in seconds."
                : "Latency of each succeeded attempt from its intended start (corrected for coordinated omission), in seconds; "
                    + "failed attempts are in survey_bot_time_to_fail_seconds.", latency)
        if !timeToFail.isEmpty {
            text.family(
                "survey_bot_time_to_fail_seconds", .histogram,
                "Time to fail of each failed attempt from its intended start, in seconds (not an attempt that failed before anything "
                    + "was timed: a host that did not resolve).", timeToFail)
        }

        if let lag = report.lag {
            var samples: [Sample] = []
            for (kind, record) in [("arrival", lag.arrivalsHistogram), ("timer", lag.timersHistogram)] {
                if let histogram = record?.histogram { samples += histogramSamples(histogram, label: ("kind", kind)) }
            }
            text.family(
                "survey_bot_lag_seconds", .histogram,
                "survey-bot's own lateness, in seconds: how late each open-model respondent started after its arrival's time "
                    + "(kind arrival), and how late each think, pace or retry wait ended (kind timer).", samples)
            text.family(
                "survey_bot_lag_limit_seconds", .gauge, "The p99 of the lag above which the report warns (report.lag_limit).",
                value: number(lag.limitMs / 1000))
        }

        let respondents = report.respondents
        var endings: [Sample] = [
            ([("ending", "completed")], String(respondents.completed)),
            ([("ending", "finished_with_unanswered")], String(respondents.finishedWithUnanswered)),
            ([("ending", "cut_short")], String(respondents.cutShort ?? 0)),
        ]
        // Every reason any journey may give, zeros too, and the `<step>_failed` of the report's own.
        let reasons = Set(AbandonReason.known.map(\.rawValue)).union(respondents.abandonedReasons.keys).sorted()
        for reason in reasons {
            endings.append(([("ending", "abandoned_" + reason)], String(respondents.abandonedReasons[reason] ?? 0)))
        }
        text.family(
            "survey_bot_respondents_started_total", .counter, "Respondents that began the survey.", value: String(respondents.started))
        text.family("survey_bot_respondents_total", .counter, "Respondents whose survey ended, by how it ended.", endings)
        text.family(
            "survey_bot_respondents_dropped_total", .counter,
            "Open model: arrivals not started because the concurrency cap was reached.", value: String(respondents.dropped))
        text.family(
            "survey_bot_answers_total", .counter,
            "Answers: submitted, unanswered after their retries, skipped (no answer in the plan), or declined (optional, left out).",
            [
                ([("result", "submitted")], String(report.answers.submitted)),
                ([("result", "unanswered")], String(report.answers.unanswered)),
                ([("result", "skipped")], String(report.answers.skipped)),
                ([("result", "declined")], String(report.answers.declined)),
            ])
        if let questions = report.questions {
            text.family(
                "survey_bot_question_total", .counter,
                "What each question saw: shown, answered, declined or for want of an answer, unanswered, refused.",
                Self.questionSamples(questions))
        }
        if let raw = report.raw {
            text.family("survey_bot_raw_lines_total", .counter, "Lines written to the --raw file.", value: String(raw.lines))
            text.family(
                "survey_bot_raw_dropped_total", .counter, "Attempts not written to the --raw file: the disk could not keep up.",
                value: String(raw.dropped))
        }
        text.lines.append("# EOF")
        return text.lines.joined(separator: "\n") + "\n"
    }

    /// Each question's counts, a sample an outcome, the questions in the order reports list
    /// them and those past the engine's limit last; no answer's value, which would make a
    /// series of every free-text answer.
    static func questionSamples(_ questions: RunReport.Questions) -> [Sample] {
        var rows = questions.orderedIDs.compactMap { id in questions.byID[id].map { (id, $0) } }
        if let beyond = questions.beyondLimit { rows.append((ReportWording.beyondLimitLabel, beyond)) }
        return rows.flatMap { id, question in
            [
                ("shown", question.shown), ("answered", question.answered), ("declined", question.declined),
                ("skipped_no_answer", question.skippedNoAnswer), ("unanswered", question.unanswered), ("refused", question.refused),
            ].map { outcome, count in ([("question", id), ("outcome", outcome)], String(count)) }
        }
    }

    /// The labels on every sample, so that the files of several plans, or of the shards of one
    /// run, can sit side by side in one textfile directory: `plan`, `run_id` (absent from a
    /// report of a version before run ids), and `shard` (`2/3`) for a shard of a run in
    /// several. With `run_id` on every series, PromQL sums the shards of one run (`sum without
    /// (instance, shard)`) and never adds another run's pods to them, whatever the time range
    /// holds.
    static func identity(_ report: RunReport) -> [(String, String)] {
        var labels = [("plan", report.name)]
        if let runID = report.runID { labels.append(("run_id", runID)) }
        if let shard = report.shard, shard.count > 1 { labels.append(("shard", "\(shard.index)/\(shard.count)")) }
        return labels
    }

    /// Label pairs and the value, already formatted.
    typealias Sample = (labels: [(String, String)], value: String)

    /// A step's attempts by outcome: status codes, then error kinds (`http_4xx` and its
    /// kin are not kinds but groups of statuses, already counted under their codes).
    static func outcomes(_ step: RunReport.StepReport) -> [(String, Int)] {
        let statuses = step.status.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let errors = step.errors.filter { !$0.key.hasPrefix("http_") }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return statuses + errors
    }

    /// `_bucket` samples at every bound (cumulative, each of our buckets counted at its
    /// midpoint — within 0.8% of its values), `+Inf`, `_sum` (exact) and `_count`.
    static func histogramSamples(_ histogram: Histogram, endpoint: String) -> [Sample] {
        histogramSamples(histogram, label: ("endpoint", endpoint))
    }

    /// The cumulative buckets, sum and count of `histogram` in seconds, each sample labelled.
    static func histogramSamples(_ histogram: Histogram, label: (name: String, value: String)) -> [Sample] {
        var samples: [Sample] = []
        let buckets = histogram.buckets
        var index = 0
        var cumulative: UInt64 = 0
        for bound in latencyBounds {
            let limit = bound * 1e9
            while index < buckets.count, Double(histogram.representative(of: buckets[index])) <= limit {
                cumulative += buckets[index].count
                index += 1
            }
            samples.append(([label, ("le", number(bound))], String(cumulative)))
        }
        samples.append(([label, ("le", "+Inf")], String(histogram.count)))
        samples.append(([label, ("", "_sum")], number(histogram.sum / 1e9)))
        samples.append(([label, ("", "_count")], String(histogram.count)))
        return samples
    }

    /// A number as Prometheus reads it: integers without a point, others in Swift's shortest
    /// exact form (`0.0025`, `1e-05`).
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A report's ISO-8601 time in seconds since the epoch, to the millisecond.
    static func unixSeconds(_ timestamp: String) -> Double? {
        for style in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()] {
            if let date = try? Date(timestamp, strategy: style) { return (date.timeIntervalSince1970 * 1000).rounded() / 1000 }
        }
        return nil
    }

    /// Escapes a label value: backslash, double quote and line feed.
    static func escapeLabel(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Escapes `# HELP` text: backslash and line feed.
    static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The families of the exposition, each with its `# HELP` and `# TYPE`.
    struct Exposition {
        enum Kind: String { case counter, gauge, histogram }

        /// Labels every sample carries first.
        var common: [(String, String)]
        var lines: [String] = []

        /// A family of one sample without labels of its own.
        mutating func family(_ name: String, _ kind: Kind, _ help: String, value: String) {
            family(name, kind, help, [([], value)])
        }

        /// A family and its samples. In a histogram's samples, the label `le` names a bucket,
        /// and an empty label named `_sum` or `_count` stands for that sample instead.
        mutating func family(_ name: String, _ kind: Kind, _ help: String, _ samples: [Sample]) {
            lines.append("# HELP \(name) \(escapeHelp(help))")
            lines.append("# TYPE \(name) \(kind.rawValue)")
            for (labels, value) in samples {
                var suffix = kind == .histogram ? "_bucket" : ""
                var pairs: [String] = []
                for (label, labelValue) in common + labels {
                    if label.isEmpty {
                        suffix = labelValue
                    } else {
                        pairs.append("\(label)=\"\(escapeLabel(labelValue))\"")
                    }
                }
                lines.append(name + suffix + (pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}") + " " + value)
            }
        }
    }
}
