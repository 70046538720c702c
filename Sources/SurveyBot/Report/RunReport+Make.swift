import Foundation
import SurveyEngine

extension RunReport {
    /// The facts of a run that are not in its metrics.
    struct RunFacts {
        var plan: Plan
        var target: String
        var startedAt: Date
        var endedAt: Date
        var elapsed: Duration
        var seed: UInt64
        var shard: Shard
        var interrupted: Bool
        var insecure: Bool
    }

    /// Builds the report of a run from its metrics, and evaluates the plan's thresholds on it.
    static func make(metrics: RunMetrics, facts: RunFacts) -> RunReport {
        let seconds = max(facts.elapsed.seconds, 1e-9)
        let plan = facts.plan
        var report = RunReport(
            schema: schemaVersion, tool: Tool(name: "survey-bot", version: SurveyEngine.version), name: plan.name, passed: true,
            interrupted: facts.interrupted, target: plan.environmentKeys.contains("target") ? redacted : facts.target,
            startedAt: timestamp(facts.startedAt), endedAt: timestamp(facts.endedAt), durationS: (seconds * 1000).rounded() / 1000,
            shard: facts.shard == .whole ? nil : facts.shard.description, seed: facts.seed, endpoints: EndpointReport.all(metrics),
            respondents: Respondents(metrics), answers: Answers(metrics),
            throughput: Throughput(metrics, seconds: seconds),
            thresholds: [], plan: PlanRecord(plan, insecure: facts.insecure))
        report.evaluateThresholds(plan.thresholds)
        return report
    }

    /// Evaluates `thresholds` on the report's figures and sets `passed`.
    mutating func evaluateThresholds(_ thresholds: [Threshold]) {
        self.thresholds = thresholds.map { threshold in
            let actual = value(of: threshold)
            return ThresholdResult(
                name: threshold.name, op: threshold.comparison.rawValue, limit: threshold.limit, actual: actual,
                passed: actual.map(threshold.holds(actual:)) ?? false, text: threshold.description)
        }
        passed = self.thresholds.allSatisfy(\.passed)
    }

    /// The figure a threshold reads, in its unit; nil when there is nothing to measure.
    func value(of threshold: Threshold) -> Double? {
        let parts: [EndpointReport]
        switch threshold.scope {
        case .questions: parts = endpoints["questions"].map { [$0] } ?? []
        case .submit: parts = endpoints["submit"].map { [$0] } ?? []
        case .survey: parts = Array(endpoints.values)
        }
        func ratio(_ numerator: Int, _ denominator: Int) -> Double? {
            denominator == 0 ? nil : Double(numerator) / Double(denominator)
        }
        let calls = parts.reduce(0) { $0 + $1.calls }
        let attempts = parts.reduce(0) { $0 + $1.attempts }
        switch threshold.metric {
        case .successRate: return ratio(parts.reduce(0) { $0 + $1.succeeded }, calls)
        case .firstTrySuccessRate: return ratio(parts.reduce(0) { $0 + $1.firstTrySucceeded }, calls)
        case .errorRate: return ratio(parts.reduce(0) { $0 + $1.failedAttempts }, attempts)
        case .retries: return Double(parts.reduce(0) { $0 + $1.retries })
        case .attemptsPerSecond: return durationS > 0 ? (Double(attempts) / durationS * 10).rounded() / 10 : nil
        case .completionRate: return ratio(respondents.completed, respondents.started)
        case .min, .mean, .p50, .p90, .p95, .p99, .p999, .max:
            guard attempts > 0 else { return nil }
            if parts.count == 1 { return parts[0].latencyMs.value(threshold.metric) }
            var merged = Histogram()
            for part in parts { if let histogram = part.histogram.histogram { merged.merge(histogram) } }
            return LatencySummary(merged).value(threshold.metric)
        }
    }

    static let redacted = "<redacted>"

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension RunReport.Respondents {
    init(_ metrics: RunMetrics) {
        var reasons: [String: Int] = [:]
        for (reason, count) in metrics.abandoned { reasons[reason.rawValue] = count }
        self.init(
            started: metrics.respondentsStarted, completed: metrics.respondentsCompleted,
            finishedWithUnanswered: metrics.respondentsFinishedWithUnanswered, abandoned: metrics.respondentsAbandoned,
            abandonedReasons: reasons, dropped: metrics.dropped)
    }
}

extension RunReport.Throughput {
    /// The rate over `seconds` of wall time, to a tenth.
    init(_ metrics: RunMetrics, seconds: Double) {
        self.init(
            attemptsPerS: seconds > 0 ? (Double(metrics.attempts) / seconds * 10).rounded() / 10 : 0,
            timeline: metrics.attemptsPerSecond, failuresTimeline: metrics.failuresPerSecond)
    }
}

extension RunReport.Answers {
    init(_ metrics: RunMetrics) {
        self.init(submitted: metrics.answersSubmitted, unanswered: metrics.answersUnanswered, missing: metrics.answersMissing)
    }
}

extension RunReport.EndpointReport {
    /// Every endpoint's figures, keyed by the endpoint's name.
    static func all(_ metrics: RunMetrics) -> [String: Self] {
        var endpoints: [String: Self] = [:]
        for endpoint in Endpoint.allCases { endpoints[endpoint.rawValue] = Self(metrics[endpoint]) }
        return endpoints
    }

    init(_ metrics: EndpointMetrics) {
        calls = metrics.calls
        attempts = metrics.attempts
        succeeded = metrics.succeeded
        failed = metrics.failed
        firstTrySucceeded = metrics.firstTrySucceeded
        retries = metrics.retries
        retriesDenied = metrics.retriesDenied
        failedAttempts = metrics.failedAttempts
        var status: [String: Int] = [:]
        var errors: [String: Int] = [:]
        for (code, count) in metrics.statuses {
            status[String(code)] = count
            if code >= 400 && code < 600 { errors["http_\(code / 100)xx", default: 0] += count }
        }
        for (kind, count) in metrics.errors { errors[kind.rawValue] = count }
        self.status = status
        self.errors = errors
        latencyMs = RunReport.LatencySummary(metrics.correctedLatency)
        serviceLatencyMs = RunReport.LatencySummary(metrics.serviceTime)
        histogram = RunReport.HistogramRecord(metrics.correctedLatency)
        serviceHistogram = RunReport.HistogramRecord(metrics.serviceTime)
    }
}

extension RunReport.PlanRecord {
    init(_ plan: Plan, insecure: Bool) {
        let secret = plan.environmentKeys
        func shown(_ path: String, _ value: String) -> String { secret.contains(path) ? RunReport.redacted : value }
        name = shown("name", plan.name)
        target = shown("target", plan.target.description)
        switch plan.run.load {
        case .closed(let respondents): load = "closed: \(respondents) respondents"
        case .open(let rate, let ramp):
            var text = "open"
            if let rate { text += ": \(rate)" }
            if !ramp.isEmpty { text += ", ramp " + ramp.map { "\($0.duration.compactDescription) → \($0.target)" }.joined(separator: ", ") }
            load = text
        }
        concurrency = plan.run.concurrency
        duration = plan.run.duration?.compactDescription
        timeout = plan.run.client.timeout.compactDescription
        connectTimeout = (plan.run.client.connectTimeout ?? plan.run.client.timeout).compactDescription
        think = plan.run.think.description
        order = plan.run.order.rawValue
        api = ["questions": plan.run.api.questions.description, "submit": plan.run.api.submit.description]
        // Header values are credentials more often than not: never written.
        headers = Dictionary(plan.run.api.headers.map { ($0.name, RunReport.redacted) }, uniquingKeysWith: { a, _ in a })
        if plan.report.includeAnswers {
            var book: [String: [String]] = [:]
            for (id, choices) in plan.run.answers.byQuestion {
                book[String(id)] = secret.contains("answers.\(id)") ? [RunReport.redacted] : choices
            }
            if let fallback = plan.run.answers.fallback { book["*"] = secret.contains("answers.*") ? [RunReport.redacted] : fallback }
            answers = book
        } else {
            answers = nil
        }
        func describe(_ policy: RetryPolicy) -> String {
            var text = "\(policy.attempts) attempts, \(policy.backoff.strategy.rawValue)"
            if policy.backoff.strategy != .none {
                text += " \(policy.backoff.initial.compactDescription)..\(policy.backoff.max.compactDescription)"
                if policy.backoff.strategy == .exponential { text += " ×\(policy.backoff.multiplier)" }
            }
            text += ", jitter \(policy.jitter.rawValue), on \(policy.retryOn)"
            return text
        }
        var retry = ["questions": describe(plan.run.retry.questions), "submit": describe(plan.run.retry.submit)]
        if let budget = plan.run.retry.budget {
            retry["budget"] = "\(formatPercent(budget.ratio)) of calls + \(budget.minimum)"
        }
        self.retry = retry
        if plan.target == .builtin {
            let questions: String
            switch plan.builtin.questions {
            case .builtin(let count): questions = "\(count) questions"
            case .file(let path): questions = "questions from \(path)"
            case .raw(let path): questions = "questions body from \(path), unchecked"
            }
            let faults = plan.builtin.faults
            var parts = [questions]
            if faults.failRate > 0 { parts.append("fail \(formatPercent(faults.failRate))") }
            if faults.errorRate > 0 { parts.append("5xx \(formatPercent(faults.errorRate))") }
            if faults.coldStart > 0 { parts.append("cold start \(faults.coldStart)") }
            if !faults.latency.isZero { parts.append("latency \(faults.latency)") }
            if faults.resetRate > 0 { parts.append("reset \(formatPercent(faults.resetRate))") }
            if faults.malformedRate > 0 { parts.append("malformed \(formatPercent(faults.malformedRate))") }
            if faults.slowRate > 0 {
                parts.append("slow \(formatPercent(faults.slowRate)) at \(faults.trickleInterval.compactDescription)")
            }
            if faults.hangRate > 0 { parts.append("hang \(formatPercent(faults.hangRate))") }
            builtin = parts.joined(separator: ", ")
        } else {
            builtin = nil
        }
        self.insecure = insecure
    }
}
