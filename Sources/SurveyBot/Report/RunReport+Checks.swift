import Foundation
import SurveyEngine
import SurveyJourney
import SurveyMetrics
import SurveyWire

/// The names and the timeline of a report read back, checked by one rule: a report holds only
/// what a run writes. A name no run writes (an error kind, a status, a step, an abandon reason,
/// a stop cause) is refused, not carried through to one format and dropped from another; a
/// timeline must lie on its wall-clock grid, at most `Timeline.maxIntervals` points, every
/// number in range. Each refusal names the field.
extension RunReport {
    /// The largest latency, in ms, a report may hold: a year. Beyond it a renderer's arithmetic
    /// on nanoseconds would overflow, and no attempt waits that long.
    static let maxLatencyMs = 365.0 * 86_400_000

    /// 2200-01-01 in seconds since 1970: no timeline starts later, nor does a run end later from
    /// its start, so nanoseconds since 1970 stay well inside 64 bits.
    static let latestStartS = 7_258_118_400.0

    /// The kinds a failed attempt is counted under: the engine's `ErrorKind`s, and `http_1xx` …
    /// `http_5xx` for a failed status.
    static let errorKindNames: Set<String> = Set(ErrorKind.allCases.map(\.rawValue)).union((1...5).map { "http_\($0)xx" })

    /// What ended a run, as reports write it.
    static let stopCauseNames: Set<String> = Set(StopCause.allCases.map(\.rawValue)).union([stoppedByThresholdCause])

    /// Whether `text` is a status code a report counts under: three digits, 100 to 599.
    static func isStatusName(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && (100...599).contains(Int(text) ?? 0)
    }

    /// `text` in quotes, escaped and cut as diagnostics show what they quote.
    private static func quoted(_ text: String) -> String { "'\(TerminalText.escaped(text, limit: 80))'" }

    /// The first name no run writes, or nil.
    func nameProblem() -> String? {
        func stepNameProblem(_ name: String, _ field: String) -> String? {
            JourneyKeys.isStepName(name) ? nil : "'\(field)' holds \(Self.quoted(name)), which is not a step's name"
        }
        func kinds(_ errors: [String: Int], _ field: String) -> String? {
            errors.keys.sorted().first { !Self.errorKindNames.contains($0) }.map {
                "'\(field)' holds \(Self.quoted($0)), which is not an error kind"
            }
        }
        for name in stepReports.keys.sorted() {
            if let problem = stepNameProblem(name, "endpoints") { return problem }
            let step = stepReports[name]!
            if let problem = kinds(step.errors, "endpoints.\(name).errors") { return problem }
            for (field, statuses) in [("status", step.status), ("failed_status", step.failedStatus ?? [:])] {
                if let bad = statuses.keys.sorted().first(where: { !Self.isStatusName($0) }) {
                    return "'endpoints.\(name).\(field)' holds \(Self.quoted(bad)), which is not a status code"
                }
            }
            if let bad = (step.errorSamples ?? [:]).keys.sorted().first(where: { !Self.errorKindNames.contains($0) }) {
                return "'endpoints.\(name).error_samples' holds \(Self.quoted(bad)), which is not an error kind"
            }
        }
        for name in steps ?? [] {
            if let problem = stepNameProblem(name, "steps") { return problem }
        }
        // A known reason, or `<step>_failed` of a step's name.
        func isReason(_ name: String) -> Bool {
            AbandonReason.known.contains { $0.rawValue == name }
                || name.hasSuffix("_failed") && JourneyKeys.isStepName(String(name.dropLast("_failed".count)))
        }
        if let bad = respondents.abandonedReasons.keys.sorted().first(where: { !isReason($0) }) {
            return "'respondents.abandoned_reasons' holds \(Self.quoted(bad)), which is not a reason to abandon"
        }
        if let stoppedBy, !Self.stopCauseNames.contains(stoppedBy) {
            return "'stopped_by' is \(Self.quoted(stoppedBy)), which is not what stops a run"
        }
        for name in (timeline?.stepPoints.keys).map({ $0.sorted() }) ?? [] where stepReports[name] == nil {
            return "'timeline.endpoints' holds \(Self.quoted(name)), which 'endpoints' does not"
        }
        // A run writes a proxy's credentials as `***`: a report that shows them is refused
        // before any format repeats them, and without quoting them.
        if let proxy = plan.proxy, proxy.hasPrefix("http://"), let at = proxy.prefix(while: { $0 != " " }).firstIndex(of: "@"),
            proxy[..<at] != "http://***"
        {
            return "'plan.proxy' shows a proxy's credentials, which no run writes (a run writes http://***@host:port)"
        }
        return nil
    }

    /// The first timeline field out of range or off the grid, or nil.
    func timelineProblem() -> String? {
        guard let timeline else { return nil }
        let interval = timeline.intervalS
        guard interval.isFinite, interval >= 0.001, interval <= 1e9, abs((interval * 1000).rounded() - interval * 1000) < 1e-6 else {
            return "'timeline.interval_s' is \(interval), not a whole number of milliseconds from 0.001 to 1e9"
        }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // From 1970 (a clock never set) to 2200.
        guard let start = try? Date(timeline.start, strategy: style), (0..<Self.latestStartS).contains(start.timeIntervalSince1970) else {
            return "'timeline.start' is \(Self.quoted(timeline.start)), not a time from 1970 to 2200"
        }
        guard timeline.gridPosition != nil else {
            return "'timeline.start' is \(Self.quoted(timeline.start)), not a multiple of 'timeline.interval_s' since 1970"
        }
        let points = timeline.survey.count
        for (name, line) in timeline.stepPoints.sorted(by: { $0.key < $1.key }) where line.count != points {
            return "'timeline.endpoints.\(name)' has \(line.count) points where 'timeline.survey' has \(points)"
        }
        func offGrid(_ t: Double, _ position: Int) -> Bool { !(abs(t - Double(position) * interval) <= 0.001) }
        func count(_ value: Int, _ field: String) -> String? {
            (0...Self.maxCount).contains(value) ? nil : "'\(field)' is \(value), out of range"
        }
        func latency(_ value: Double?, _ field: String) -> String? {
            guard let value else { return nil }
            return value.isFinite && value >= 0 && value <= Self.maxLatencyMs ? nil : "'\(field)' is \(value), out of range"
        }
        for (position, point) in timeline.survey.enumerated() {
            let field = "timeline.survey.\(position)"
            if offGrid(point.t, position) { return "'\(field).t' is \(point.t), not \(position) intervals from 'timeline.start'" }
            let active = point.respondentsActive
            if !(active.isFinite && active >= 0 && active <= Double(Self.maxCount)) {
                return "'\(field).respondents_active' is \(active), out of range"
            }
            var counts = [
                count(point.respondentsStarted, "\(field).respondents_started"),
                count(point.respondentsFinished, "\(field).respondents_finished"), count(point.dropped, "\(field).dropped"),
                latency(point.lagP99, "\(field).lag_p99_ms"),
            ]
            if let histogram = point.lag,
                histogram.count > UInt64(Self.maxCount) || histogram.max > UInt64(Self.maxLatencyMs * 1e6) || !histogram.sum.isFinite
            {
                counts.append("'\(field).lag' is not a valid histogram")
            }
            if let problem = counts.compactMap({ $0 }).first { return problem }
        }
        for (name, points) in timeline.stepPoints.sorted(by: { $0.key < $1.key }) {
            for (position, point) in points.enumerated() {
                let field = "timeline.endpoints.\(name).\(position)"
                if offGrid(point.t, position) { return "'\(field).t' is \(point.t), not \(position) intervals from 'timeline.start'" }
                var problems = [
                    count(point.attempts, "\(field).attempts"), count(point.succeeded, "\(field).succeeded"),
                    count(point.failed, "\(field).failed"), count(point.retries, "\(field).retries"),
                    latency(point.p50, "\(field).p50"), latency(point.p95, "\(field).p95"), latency(point.p99, "\(field).p99"),
                    latency(point.max, "\(field).max"),
                ]
                problems += point.errors.sorted(by: { $0.key < $1.key }).map { count($0.value, "\(field).errors.\($0.key)") }
                if let bad = point.errors.keys.sorted().first(where: { !Self.errorKindNames.contains($0) }) {
                    problems.append("'\(field).errors' holds \(Self.quoted(bad)), which is not an error kind")
                }
                if let histogram = point.histogram,
                    histogram.count > UInt64(Self.maxCount) || histogram.max > UInt64(Self.maxLatencyMs * 1e6) || !histogram.sum.isFinite
                {
                    problems.append("'\(field).histogram' is not a valid histogram")
                }
                if let problem = problems.compactMap({ $0 }).first { return problem }
            }
        }
        for (value, field) in [(timeline.runStartS, "run_start_s"), (timeline.runEndS, "run_end_s")] {
            if let value, !(value.isFinite && value >= 0 && value < Self.latestStartS) {
                return "'timeline.\(field)' is \(value), out of range"
            }
        }
        if let start = timeline.runStartS, let end = timeline.runEndS, end < start {
            return "'timeline.run_end_s' is \(end), before 'timeline.run_start_s' (\(start))"
        }
        // The histograms whole: what `merge` adds up.
        guard timeline.grid != nil else { return "'timeline' holds a histogram that is not valid" }
        return nil
    }

    /// The first member name an object of the document holds twice, with where: parsers keep
    /// the first or the last, so a report with one has no single meaning. Nil when none does.
    static func duplicateKeyProblem(_ value: JSONValue, at path: [String] = []) -> String? {
        switch value {
        case .object(let members):
            var names = Set<String>()
            for (name, member) in members {
                guard names.insert(name).inserted else {
                    let field = (path + [name]).joined(separator: ".")
                    return "'\(TerminalText.escaped(field, limit: 200))' appears twice in one object"
                }
                if let problem = duplicateKeyProblem(member, at: path + [name]) { return problem }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let problem = duplicateKeyProblem(element, at: path + [String(index)]) { return problem }
            }
        default: break
        }
        return nil
    }

    /// Whether the document's timeline has more points than a run writes, read from the parsed
    /// JSON before it is decoded; nil when it has not (or has no timeline).
    static func timelineLengthProblem(_ document: JSONValue) -> String? {
        guard let timeline = document["timeline"] else { return nil }
        if case .array(let points)? = timeline["survey"], points.count > Timeline.maxIntervals {
            return "'timeline.survey' has \(points.count) points, more than the \(Timeline.maxIntervals) a run writes"
        }
        if case .object(let steps)? = timeline["endpoints"] {
            for (name, value) in steps {
                guard case .array(let points) = value, points.count > Timeline.maxIntervals else { continue }
                return
                    "'timeline.endpoints.\(TerminalText.escaped(name))' has \(points.count) points, more than the \(Timeline.maxIntervals) a run writes"
            }
        }
        return nil
    }
}
