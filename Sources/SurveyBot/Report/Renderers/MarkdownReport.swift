import SurveyEngine

/// The report for people: a verdict, a table of the steps, respondents and answers, error
/// kinds, thresholds, a latency chart and a throughput sparkline. GitHub-flavoured Markdown.
enum MarkdownReport: ReportRenderer {
    /// What `--raw` wrote: `1,000 lines` or `17 lines, 983 dropped (the disk could not keep up)`;
    /// nil for a run without `--raw`.
    static func rawText(_ report: RunReport) -> String? {
        guard let raw = report.raw else { return nil }
        let lines = "\(raw.lines) line\(raw.lines == 1 ? "" : "s") written"
        return raw.dropped == 0 ? lines : lines + ", \(raw.dropped) dropped (the disk could not keep up)"
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

    static func render(_ report: RunReport) -> String {
        let figures = RunFigures(report)
        var lines: [String] = []
        lines.append("# survey-bot: \(report.name)" + (report.missingShardsText.map { " — ⚠️ PARTIAL merge, \($0)" } ?? ""))
        lines.append("")
        lines.append(
            "**\(verdict(report))** — \(report.target), \(report.startedAt), \(Readable.number(report.durationS)) s\(stopped(report))")
        if let shard = report.shard, shard.count > 1 { lines += ["", "Shard \(shard) of a larger run."] }
        lines.append("")
        lines.append("| step | calls | attempts | success | first try | retries | p50 | p95 | p99 | max |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in figures.steps {
            guard let calls = figures.perStep[name] else { continue }
            let latency = calls.latency
            lines.append(
                "| \(name) | \(calls.calls) | \(calls.attempts) | \(Readable.percent(calls.successRate)) "
                    + "| \(Readable.percent(calls.firstTrySuccessRate)) | \(calls.retries) | \(Readable.ms(latency?.p50)) "
                    + "| \(Readable.ms(latency?.p95)) | \(Readable.ms(latency?.p99)) | \(Readable.ms(latency?.max)) |")
        }
        lines.append("")
        let respondents = report.respondents
        var who =
            "**Respondents:** \(respondents.started) started, \(respondents.completed) completed, "
            + "\(respondents.finishedWithUnanswered) finished with unanswered questions, \(respondents.abandoned) abandoned"
        who += abandonedReasons(respondents)
        if let cutShort = respondents.cutShort, cutShort > 0 { who += ", \(cutShort) cut short by \(cutShortCause(report))" }
        if respondents.dropped > 0 { who += ", \(respondents.dropped) arrivals dropped at the concurrency cap" }
        lines.append(who + ".")
        lines.append("")
        var answers = "**Answers:** \(report.answers.submitted) submitted, \(report.answers.unanswered) unanswered"
        if report.answers.skipped > 0 { answers += ", \(report.answers.skipped) skipped (no answer in the plan)" }
        lines.append(answers + ".")
        lines.append("")
        if let local = report.localResource {
            lines.append("**Not sent:** \(localResource(local)).")
            lines.append("")
        }
        if let raw = rawText(report) {
            lines.append("**Raw attempts:** \(raw).")
            lines.append("")
        }
        lines.append("**Throughput:** \(Readable.number(report.throughput.attemptsPerS)) attempts/s")
        if !report.throughput.timeline.isEmpty {
            lines.append("")
            lines.append("`\(Readable.sparkline(report.throughput.timeline))` attempts per second")
        }
        if let connections = connections(figures) {
            lines += ["", "**Connections:** \(connections)."]
        }
        if let timeline = report.timeline, !timeline.survey.isEmpty {
            lines +=
                ["", "## Over time", ""]
                + overTime(
                    timeline, steps: figures.steps.filter { figures.perStep[$0]?.attempts ?? 0 > 0 },
                    rates: timeline.perSecond(startedAt: report.startedAt, endedAt: report.endedAt))
        }
        let errors = errors(report)
        if !errors.isEmpty {
            // A reason column only where a kind has more to say than its name (TLS failures).
            let withReasons = errors.contains { $0.sample != nil }
            lines += ["", "## Errors", ""]
            lines.append(withReasons ? "| step | kind | attempts | first reason |" : "| step | kind | attempts |")
            lines.append(withReasons ? "|---|---|---:|---|" : "|---|---|---:|")
            for error in errors {
                let reason = withReasons ? " \(error.sample.map(escape) ?? "") |" : ""
                lines.append("| \(error.step) | \(error.kind) | \(error.count) |" + reason)
            }
        }
        if !report.thresholds.isEmpty {
            lines += ["", "## Thresholds", "", "| threshold | actual | result |", "|---|---:|---|"]
            for result in report.thresholds {
                let implicit = result.threshold.implicit ? " (implicit)" : result.threshold.abort ? " (abort)" : ""
                lines.append(
                    "| `\(result.threshold)`\(implicit) | \(Readable.actual(result)) | \(result.passed ? "✅ passed" : "❌ failed") |")
            }
        }
        for name in figures.steps {
            guard let step = report.endpoints[name], step.attempts > 0, let histogram = step.correctedHistogram.histogram else {
                continue
            }
            lines += ["", "## Latency of \(name)", "", "```"]
            lines.append(contentsOf: LatencyChart.lines(histogram))
            lines.append("```")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Mermaid `xychart-beta` charts of the timeline, which GitHub draws in job summaries and
    /// comments — attempts per second, and each step's p95 — each after a text fallback (a
    /// sparkline) that every viewer shows. An interval without attempts is drawn as 0.
    static func overTime(_ timeline: RunReport.TimelineRecord, steps: [String], rates: [Double]) -> [String] {
        let end = Readable.number(Double(timeline.survey.count) * timeline.intervalS)
        func chart(_ title: String, unit: String, _ values: [Double]) -> [String] {
            // Readable's precision, not a fixed 0.1: a fast step's p95 of 0.045 ms is not 0.
            let numbers = values.map(Readable.number).joined(separator: ", ")
            return [
                "```mermaid", "xychart-beta", "    title \"\(title)\"", "    x-axis \"seconds from start\" 0 --> \(end)",
                "    y-axis \"\(unit)\"", "    line [\(numbers)]", "```",
            ]
        }
        func sparkline(_ values: [Double]) -> String {
            Readable.sparkline(values.map { Int(($0 * 100).rounded()) })
        }
        let interval = Readable.number(timeline.intervalS)
        let attempts = timeline.survey.indices.map { position in
            Double(timeline.endpoints.values.reduce(0) { $0 &+ (position < $1.count ? $1[position].attempts : 0) }) * rates[position]
        }
        var lines = [
            "`\(sparkline(attempts))` attempts per second, every \(interval) s (peak \(Readable.number((attempts.max() ?? 0).rounded())))",
            "",
        ]
        lines += chart("Attempts per second", unit: "attempts/s", attempts)
        for step in steps {
            guard let points = timeline.endpoints[step] else { continue }
            let p95 = points.map { $0.p95 ?? 0 }
            lines += ["", "`\(sparkline(p95))` p95 of \(step), every \(interval) s (highest \(Readable.ms(p95.max() ?? 0)))", ""]
            lines += chart("p95 of \(step) (ms)", unit: "ms", p95)
        }
        return lines
    }

    /// Why respondents were abandoned, by reason: ` (interrupted: 8)`; empty when none were.
    static func abandonedReasons(_ respondents: RunReport.Respondents) -> String {
        guard !respondents.abandonedReasons.isEmpty else { return "" }
        return " (" + respondents.abandonedReasons.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            + ")"
    }

    /// What cut respondents short: `the abort` of a threshold, or `the duration`.
    static func cutShortCause(_ report: RunReport) -> String {
        report.stoppedBy == RunReport.stoppedByThresholdCause ? "the abort" : "the duration"
    }

    static func verdict(_ report: RunReport) -> String {
        switch report.verdict {
        case .interrupted: "⚠️ interrupted"
        case .localResource: "❌ failed: out of local resources"
        case .failed(let failed, let of): "❌ failed \(failed) of \(of) threshold\(of == 1 ? "" : "s")"
        case .noneCompleted: "❌ failed: no respondent completed the survey"
        case .stoppedByThreshold(let threshold): "❌ failed: stopped by \(threshold.map { "`\($0)`" } ?? "a threshold") (abort)"
        case .partial(let held): "⚠️ partial: \(held) threshold\(held == 1 ? "" : "s") held on \(report.shardsMergedText)"
        case .passed(let count): "✅ passed \(count) threshold\(count == 1 ? "" : "s")"
        case .completed: "✅ completed"
        }
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

    /// Every error kind of every step that occurred, steps in the journey's order and kinds
    /// by name, with the first reason seen where there is one.
    static func errors(_ report: RunReport) -> [(step: String, kind: String, count: Int, sample: String?)] {
        report.stepNames.flatMap { name in
            let step = report.endpoints[name]
            return (step?.errors ?? [:]).filter { $0.value > 0 }.sorted { $0.key < $1.key }.map {
                (name, $0.key, $0.value, step?.errorSamples?[$0.key])
            }
        }
    }

    /// `25 new, 195 reused; connect p50 0.08 ms, p95 0.2 ms; TLS handshake p50 2.1 ms, p95 3 ms;
    /// TLSv1.3 TLS_AES_256_GCM_SHA384`; nil for reports that do not count connections.
    static func connections(_ figures: RunFigures) -> String? {
        let connections = figures.connections
        guard connections.new + connections.reused > 0 else { return nil }
        var parts = ["\(connections.new) new, \(connections.reused) reused"]
        if connections.reconnects > 0 {
            parts[0] += " (\(connections.reconnects) requests sent again after a kept-alive connection closed)"
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

    /// Text made safe inside a table cell: no pipe or line break can end it.
    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
