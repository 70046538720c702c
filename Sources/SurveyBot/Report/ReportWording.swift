import SurveyEngine
import SurveyWire

/// The words every report format shares, said once: the verdict, how the survey went for the
/// respondents, the answers, what was not sent, the raw file, the errors and the connections.
/// Each format adds only its own marks: Markdown's emoji and code spans, the text summary's
/// capitals, HTML's escaping.
enum ReportWording {
    /// How a verdict reads: a pass, a failure, or a result to look at before trusting it.
    enum Mood {
        case good, bad, warning
    }

    /// The mood of a report's verdict.
    static func mood(_ report: RunReport) -> Mood {
        switch report.verdict {
        case .passed, .completed: .good
        case .failed, .localResource, .noneCompleted, .stoppedByThreshold: .bad
        case .interrupted, .partial: .warning
        }
    }

    /// The marks of a format's verdicts, by mood: Markdown's emoji, the marks every font has.
    struct Marks {
        var good: String
        var bad: String
        var warning: String

        static let emoji = Marks(good: "✅", bad: "❌", warning: "⚠️")
        static let plain = Marks(good: "✓", bad: "✗", warning: "⚠")
    }

    /// The verdict after its mark: `❌ failed 2 of 4 thresholds`.
    static func verdict(_ report: RunReport, marks: Marks, code: (String) -> String = { $0 }) -> String {
        let mark =
            switch mood(report) {
            case .good: marks.good
            case .bad: marks.bad
            case .warning: marks.warning
            }
        return "\(mark) " + verdict(report, code: code)
    }

    /// The verdict in lower-case words, `failed 2 of 4 thresholds`; `code` marks the text of a
    /// threshold (a Markdown code span).
    static func verdict(_ report: RunReport, code: (String) -> String = { $0 }) -> String {
        switch report.verdict {
        case .interrupted: "interrupted"
        case .localResource: "failed: out of local resources"
        case .failed(let failed, let of): "failed \(failed) of \(of) threshold\(of == 1 ? "" : "s")"
        case .noneCompleted: "failed: no respondent completed the survey"
        case .stoppedByThreshold(let threshold): "failed: stopped by \(threshold.map(code) ?? "a threshold") (abort)"
        case .partial(let held): "partial: \(held) threshold\(held == 1 ? "" : "s") held on \(report.shardsMergedText)"
        case .passed(let count): "passed \(count) threshold\(count == 1 ? "" : "s")"
        case .completed: "completed"
        }
    }

    /// What ended a run that did not end by itself, after its duration: ", stopped at its
    /// duration"; empty for a run that completed (a threshold's stop is in the verdict).
    static func stopped(_ report: RunReport) -> String {
        switch report.stoppedBy {
        case StopCause.duration.rawValue: ", stopped at its duration"
        case StopCause.data.rawValue: ", stopped when the data rows ran out"
        default: ""
        }
    }

    /// How the survey went for the respondents, `20 started, 18 completed, 1 finished with
    /// unanswered questions, 1 abandoned (questions_unavailable: 1)`; `short` for a terminal's
    /// summary line (`1 with unanswered`, `3 dropped`).
    static func respondents(_ report: RunReport, short: Bool = false) -> String {
        let respondents = report.respondents
        var text =
            "\(respondents.started) started, \(respondents.completed) completed, \(respondents.finishedWithUnanswered) "
            + (short ? "with unanswered" : "finished with unanswered questions") + ", \(respondents.abandoned) abandoned"
        if !respondents.abandonedReasons.isEmpty {
            text +=
                " (" + respondents.abandonedReasons.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + ")"
        }
        if let cutShort = respondents.cutShort, cutShort > 0 {
            text += ", \(cutShort) cut short by " + (report.stoppedBy == RunReport.stoppedByThresholdCause ? "the abort" : "the duration")
        }
        if respondents.dropped > 0 {
            text += short ? ", \(respondents.dropped) dropped" : ", \(respondents.dropped) arrivals dropped at the concurrency cap"
        }
        return text
    }

    /// `200 submitted, 3 unanswered`, and the questions skipped for want of an answer.
    static func answers(_ report: RunReport) -> String {
        var text = "\(report.answers.submitted) submitted, \(report.answers.unanswered) unanswered"
        if report.answers.skipped > 0 { text += ", \(report.answers.skipped) skipped (no answer in the plan)" }
        if report.answers.declined > 0 { text += ", \(report.answers.declined) declined (optional, left out)" }
        return text
    }

    /// What `--raw` wrote: `1,000 lines` or `17 lines, 983 dropped (the disk could not keep up)`;
    /// nil for a run without `--raw`.
    static func raw(_ report: RunReport) -> String? {
        guard let raw = report.raw else { return nil }
        let lines = "\(raw.lines) line\(raw.lines == 1 ? "" : "s") written"
        return raw.dropped == 0 ? lines : lines + ", \(raw.dropped) dropped (the disk could not keep up)"
    }

    /// `37 attempts (local_resource): survey-bot ran out of file descriptors or local ports
    /// (ulimit -n 40 (hard limit 40)), so this run does not measure the server`.
    static func localResource(_ local: RunReport.LocalResource) -> String {
        let limit = local.limitText.map { " (\($0))" } ?? ""
        var text = "\(local.attempts) attempt\(local.attempts == 1 ? "" : "s") (local_resource)"
        if let failures = local.builtinServerAcceptFailures {
            text += " and \(failures) connection\(failures == 1 ? "" : "s") the builtin server could not accept"
        }
        return text + ": survey-bot ran out of file descriptors or local ports\(limit), so this run does not measure the server"
    }

    /// `answer 3, open 1: not idempotent, and the request may have reached the server`: the
    /// retries not made so as not to send a request twice; nil when there were none.
    static func notRetried(_ report: RunReport) -> String? {
        let steps = report.stepNames.compactMap { name in
            report.stepReports[name]?.retriesUnsafe.flatMap { $0 > 0 ? "\(name) \($0)" : nil }
        }
        guard !steps.isEmpty else { return nil }
        return steps.joined(separator: ", ") + ": not idempotent, and the request may have reached the server"
    }

    /// Every error kind of every step that occurred, steps in the journey's order and kinds
    /// by name, with the first reason seen where there is one.
    static func errors(_ report: RunReport) -> [(step: String, kind: String, count: Int, sample: String?)] {
        report.stepNames.flatMap { name in
            let step = report.stepReports[name]
            return (step?.errors ?? [:]).filter { $0.value > 0 }.sorted { $0.key < $1.key }.map {
                (name, $0.key, $0.value, step?.errorSamples?[$0.key])
            }
        }
    }

    /// Which attempts the latency figures of a table or chart cover, the heading over them:
    /// `latency of succeeded attempts`, or for a report of a version that counted failed
    /// attempts in its latency, `latency of every attempt, failed ones too`.
    static func latencyHeading(coversFailures: Bool) -> String {
        coversFailures ? "latency of every attempt, failed ones too" : "latency of succeeded attempts"
    }

    /// `questions p50 0.103 ms, p95 0.122 ms, max 0.148 ms (60 failed attempts)`: each step's
    /// time to fail, shown apart from the latency, which is of succeeded attempts; nil when no
    /// failed attempt was timed (none failed, a host that did not resolve fails before
    /// anything is timed, or a report of a version before it).
    static func timeToFail(_ figures: RunFigures) -> String? {
        let steps = figures.steps.compactMap { name -> String? in
            guard let calls = figures.perStep[name], let time = calls.timeToFail else { return nil }
            let failed = calls.failedAttempts
            return "\(name) p50 \(Readable.ms(time.p50)), p95 \(Readable.ms(time.p95)), max \(Readable.ms(time.max)) "
                + "(\(failed) failed attempt\(failed == 1 ? "" : "s"))"
        }
        return steps.isEmpty ? nil : steps.joined(separator: "; ")
    }

    /// `the run lasted 0.22 s, within one interval of 1 s: too short to chart over time` when
    /// every report with a timeline has fewer than two intervals (a dot each, for charts over
    /// time), and one has; nil otherwise. Two reports are `the runs`; `code` marks a plan key.
    static func tooShortToChart(_ reports: [RunReport], code: (String) -> String = { "`\($0)`" }) -> String? {
        let timelines = reports.compactMap { report in report.timeline.map { (report, $0) } }.filter { !$0.1.survey.isEmpty }
        guard !timelines.isEmpty, timelines.allSatisfy({ $0.1.survey.count < 2 }) else { return nil }
        let interval = Readable.number(timelines.map(\.1.intervalS).max() ?? 0)
        let lasted = timelines.map { Readable.number($0.0.durationS) + " s" }
        let who =
            timelines.count == 1
            ? "the run lasted \(lasted[0]), within one interval of \(interval) s"
            : "the runs lasted \(lasted.joined(separator: " and ")), each within one interval of \(interval) s"
        return who + ": too short to chart over time (\(code("report.interval")) sets shorter intervals)"
    }

    /// `25 new, 195 reused; connect p50 0.08 ms, p95 0.2 ms; TLS handshake p50 2.1 ms, p95 3 ms;
    /// TLSv1.3 TLS_AES_256_GCM_SHA384`; nil for reports that do not count connections.
    static func connections(_ figures: RunFigures) -> String? {
        let connections = figures.connections
        guard connections.new + connections.reused > 0 else { return nil }
        var parts = ["\(connections.new) new, \(connections.reused) reused"]
        if connections.reconnects > 0 {
            parts[0] += " (\(connections.reconnects) requests sent again after a kept-alive connection closed or went away)"
        }
        // Said when HTTP/2 had a part: HTTP/1.1 alone is what new and reused already tell.
        if connections.protocols.keys.contains(where: { $0 != WireProtocol.http1.rawValue }) {
            parts.append(
                connections.protocols.sorted { $0.key < $1.key }.map {
                    "\($0.key) \($0.value.attempts) attempts on \($0.value.connections) connections"
                }.joined(separator: ", "))
        }
        if let connect = connections.connect {
            parts.append("connect p50 \(Readable.ms(connect.p50)), p95 \(Readable.ms(connect.p95))")
        }
        if let handshake = connections.tlsHandshake {
            parts.append(
                "TLS handshake p50 \(Readable.ms(handshake.p50)), p95 \(Readable.ms(handshake.p95)), \(connections.tlsResumed) resumed")
        }
        if !connections.tls.isEmpty {
            parts.append(connections.tls.sorted { $0.key < $1.key }.map(\.key).joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
    }
}
