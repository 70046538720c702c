import Foundation
import SurveyEngine
import SurveyJourney
import SurveyMetrics

extension RunReport {
    /// The facts of a run that are not in its metrics.
    struct RunFacts {
        var plan: Plan
        var startedAt: Date
        var endedAt: Date
        var elapsed: Duration
        var seed: UInt64
        var shard: Shard
        /// The limit on open files the run had, for a run that ran out of descriptors.
        var openFiles: OpenFilesLimit? = nil
        /// Times the builtin server found no descriptor to accept a connection with.
        var builtinServerAcceptFailures = 0
        /// What ended the run: `.signal` for a run a signal interrupted.
        var stoppedBy = StopCause.completed
        /// `--run-id`, or the id generated for the run.
        var runID: String
        /// The `abort` threshold that ended the run early (with `stoppedBy: .endedEarly`).
        var abortedBy: Threshold? = nil
    }

    /// `stopped_by` of a run an `abort` threshold ended: the engine's `endedEarly`.
    static let stoppedByThresholdCause = "threshold"

    /// Builds the report of a run from its metrics, and evaluates the plan's thresholds on it.
    static func make(metrics: RunMetrics, facts: RunFacts) -> RunReport {
        let seconds = max(facts.elapsed.seconds, 1e-9)
        let plan = facts.plan
        var report = RunReport(
            schema: schemaVersion, tool: Tool(name: "survey-bot", version: SurveyEngine.version), name: plan.name, passed: true,
            interrupted: facts.stoppedBy == .signal,
            stoppedBy: facts.stoppedBy == .endedEarly ? stoppedByThresholdCause : facts.stoppedBy.rawValue,
            target: plan.shownTarget,
            startedAt: timestamp(facts.startedAt), endedAt: timestamp(facts.endedAt), durationS: (seconds * 1000).rounded() / 1000,
            runID: facts.runID, planDigest: plan.digest, shard: ShardRecord(facts.shard), seed: facts.seed,
            stepReports: StepReport.all(metrics), steps: metrics.steps.map(\.name),
            respondents: Respondents(metrics), answers: Answers(metrics),
            throughput: Throughput(metrics, seconds: seconds), timeline: TimelineRecord(metrics.timeline, elapsed: facts.elapsed),
            thresholds: [], plan: PlanRecord(plan),
            localResource: LocalResource(
                attempts: metrics.localResource, builtinServerAcceptFailures: facts.builtinServerAcceptFailures, openFiles: facts.openFiles)
        )
        report.lag = Lag(arrivals: metrics.arrivalLag, timers: metrics.timerLag, limit: plan.report.lagLimit)
        if report.stoppedBy == stoppedByThresholdCause { report.stoppedByThreshold = facts.abortedBy?.description }
        if plan.report.includeAnswers {
            report.answers.given = Answers.given(metrics, plan)
            report.answers.givenBeyondLimit = Answers.givenBeyondLimit(metrics, plan)
        }
        report.questions = Questions(metrics.questions, plan: plan)
        report.evaluateThresholds(plan.thresholds)
        return report
    }

    /// Judges `thresholds` on the report's figures and sets `passed`: false when a threshold
    /// failed, when attempts could not be made for want of local resources, and always for a
    /// partial merge, whose figures lack whole shards, for a run a signal interrupted, whose
    /// figures lack its end, and for a run an `abort` threshold stopped, whatever its figures
    /// say at the end. Without thresholds, the implicit
    /// `survey.completion_rate > 0` is judged: a run in which none completed never passes.
    mutating func evaluateThresholds(_ thresholds: [Threshold]) {
        let figures = RunFigures(self)
        let thresholds = thresholds.isEmpty ? [Threshold.implicitCompletion] : thresholds
        self.thresholds = thresholds.map { $0.evaluate(figures) }
        passed =
            self.thresholds.allSatisfy(\.passed) && localResource == nil && partial != true && !interrupted
            && stoppedBy != Self.stoppedByThresholdCause
    }

    /// How a run ended, as every renderer words it.
    enum Verdict: Equatable {
        /// Stopped early by a signal: its figures are partial.
        case interrupted
        /// This many attempts could not be made: the process ran out of descriptors or ports.
        case localResource(attempts: Int)
        /// An `abort` threshold failed during the run and stopped it early (its text, or nil when
        /// a report of a merge does not say which).
        case stoppedByThreshold(String?)
        /// `failed` of `of` thresholds failed.
        case failed(Int, of: Int)
        /// A plan without thresholds, and no respondent completed the survey: the implicit
        /// `survey.completion_rate > 0` failed.
        case noneCompleted
        /// A merge with shards missing (`--allow-partial`) whose `held` thresholds all held on
        /// what was merged: still not a pass.
        case partial(held: Int)
        /// Every one of `count` thresholds held.
        case passed(Int)
        /// It ran to the end, had no thresholds of its own, and some respondent completed.
        case completed
    }

    var verdict: Verdict {
        if interrupted { return .interrupted }
        if let localResource { return .localResource(attempts: localResource.attempts) }
        if stoppedBy == Self.stoppedByThresholdCause { return .stoppedByThreshold(stoppedByThreshold) }
        let own = thresholds.filter { !$0.threshold.implicit }
        let failed = own.filter { !$0.passed }.count
        if failed > 0 { return .failed(failed, of: own.count) }
        if thresholds.contains(where: { $0.threshold.implicit && !$0.passed }) { return .noneCompleted }
        if partial == true { return .partial(held: own.count) }
        return own.isEmpty ? .completed : .passed(own.count)
    }

    static let redacted = "<redacted>"

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension RunReport.LocalResource {
    /// The record of `attempts` not made and of the builtin server's accepts without a
    /// descriptor, with the limit on open files; nil when there were neither.
    init?(attempts: Int, builtinServerAcceptFailures: Int = 0, openFiles: OpenFilesLimit?) {
        guard attempts > 0 || builtinServerAcceptFailures > 0 else { return nil }
        self.init(
            attempts: attempts, builtinServerAcceptFailures: builtinServerAcceptFailures > 0 ? builtinServerAcceptFailures : nil,
            openFilesLimit: openFiles?.soft, openFilesHardLimit: openFiles?.hard)
    }

    /// `ulimit -n 40 (hard limit 40)`, or nothing when the limit is not known.
    var limitText: String? {
        guard let soft = openFilesLimit, let hard = openFilesHardLimit else { return nil }
        return "ulimit -n \(OpenFilesLimit(soft: soft, hard: hard))"
    }
}

extension RunReport.Respondents {
    init(_ metrics: RunMetrics) {
        var reasons: [String: Int] = [:]
        for (reason, count) in metrics.abandoned { reasons[reason.rawValue] = count }
        self.init(
            started: metrics.respondentsStarted, completed: metrics.respondentsCompleted,
            finishedWithUnanswered: metrics.respondentsFinishedWithUnanswered, abandoned: metrics.respondentsAbandoned,
            abandonedReasons: reasons, dropped: metrics.dropped, cutShort: metrics.respondentsCutShort)
    }
}

extension RunReport.Throughput {
    /// The rate over `seconds` of wall time.
    init(_ metrics: RunMetrics, seconds: Double) {
        self.init(
            attemptsPerS: RunFigures.perSecond(metrics.attempts, seconds: seconds),
            timeline: metrics.attemptsPerSecond, failuresTimeline: metrics.failuresPerSecond)
    }
}

extension RunReport.Answers {
    init(_ metrics: RunMetrics) {
        self.init(submitted: metrics.answersSubmitted, unanswered: metrics.answersUnanswered, skipped: metrics.answersSkipped)
        declined = metrics.answersDeclined
    }

    /// What a data row gave, in `given`: its values are secrets.
    static let fromData = "(from the data)"

    /// The answers given, by question, each as the plan shows its choice.
    static func given(_ metrics: RunMetrics, _ plan: Plan) -> [String: [String: Int]] {
        let shown = plan.shownAnswers
        var given: [String: [String: Int]] = [:]
        for (question, choices) in metrics.answersGiven {
            let list = shown[question.text] ?? shown["*"] ?? []
            for (choice, count) in choices {
                let text = choice >= 0 && choice < list.count ? list[choice] : fromData
                given[question.text, default: [:]][text, default: 0] += count
            }
        }
        return given
    }

    /// The answers given to the questions past the limit, together, each as the plan's `"*"`
    /// choices show it; nil when no question was past it.
    static func givenBeyondLimit(_ metrics: RunMetrics, _ plan: Plan) -> [String: Int]? {
        guard !metrics.answersGivenBeyondLimit.isEmpty else { return nil }
        let list = plan.shownAnswers["*"] ?? []
        var given: [String: Int] = [:]
        for (choice, count) in metrics.answersGivenBeyondLimit {
            given[choice >= 0 && choice < list.count ? list[choice] : fromData, default: 0] += count
        }
        return given
    }

    /// The answers given of several reports, added up; nil when none has any.
    static func given(adding parts: [[String: [String: Int]]?]) -> [String: [String: Int]]? {
        let present = parts.compactMap { $0 }
        guard !present.isEmpty else { return nil }
        var total: [String: [String: Int]] = [:]
        for part in present {
            for (question, answers) in part { total[question, default: [:]].merge(answers, uniquingKeysWith: +) }
        }
        return total
    }
}

extension RunReport.StepReport {
    /// Every step's figures, keyed by the step's name.
    static func all(_ metrics: RunMetrics) -> [String: Self] {
        Dictionary(uniqueKeysWithValues: metrics.perStep.entries.map { step, figures in (step.name, Self(figures)) })
    }

    /// The kind a failed status is counted under: `http_4xx` for a 401.
    static func statusClass(_ status: Int) -> String { "http_\(status / 100)xx" }

    /// A status's sample as `error_samples` writes it under its class, `401: {"error":"…"}`,
    /// read back into the status and the server's reason; nil for a sample of another form.
    static func statusSample(_ text: String) -> (status: Int, reason: String)? {
        let digits = text.prefix(3)
        guard RunReport.isStatusName(String(digits)), let status = Int(digits), text.dropFirst(3).hasPrefix(": ") else { return nil }
        return (status, String(text.dropFirst(5)))
    }

    /// The failed attempts by status when nothing but the status decides: every one outside 2xx.
    static func failedByDefault(_ statuses: [Int: Int]) -> [Int: Int] {
        statuses.filter { !(200..<300).contains($0.key) }
    }

    init(_ metrics: StepMetrics) {
        calls = metrics.calls
        attempts = metrics.attempts
        localResource = metrics.localResource
        succeeded = metrics.succeeded
        failed = metrics.failed
        firstTrySucceeded = metrics.firstTrySucceeded
        retries = metrics.retries
        retriesDenied = metrics.retriesDenied
        retriesUnsafe = metrics.retriesUnsafe
        failedAttempts = metrics.failedAttempts
        var status: [String: Int] = [:]
        var errors: [String: Int] = [:]
        for (code, count) in metrics.statuses { status[String(code)] = count }
        // Redirects too: they are never followed, and the survey API answers none.
        for (code, count) in metrics.failedStatuses { errors[Self.statusClass(code), default: 0] += count }
        if metrics.failedStatuses != Self.failedByDefault(metrics.statuses) {
            failedStatus = Dictionary(uniqueKeysWithValues: metrics.failedStatuses.map { (String($0.key), $0.value) })
        }
        for (kind, count) in metrics.errors { errors[kind.rawValue] = count }
        self.status = status
        self.errors = errors
        correctedHistogram = RunReport.HistogramRecord(metrics.correctedLatency)
        serviceTimeHistogram = RunReport.HistogramRecord(metrics.serviceTime)
        connections = RunReport.Connections(metrics)
        var samples = Dictionary(uniqueKeysWithValues: metrics.errorSamples.map { ($0.key.rawValue, $0.value) })
        for (status, reason) in metrics.statusSamples { samples[Self.statusClass(status)] = "\(status): \(reason)" }
        errorSamples = samples.isEmpty ? nil : samples
        correctedLatencyMs = .of(metrics.correctedLatency)
        serviceTimeMs = .of(metrics.serviceTime)
        failedHistogram = RunReport.HistogramRecord(metrics.failedLatency)
        failedLatencyMs = .of(metrics.failedLatency)
    }
}

extension RunReport.Connections {
    /// The connection figures of a step; histograms only where something was measured.
    init(_ metrics: StepMetrics) {
        func summary(_ histogram: Histogram) -> (RunReport.LatencySummary?, RunReport.HistogramRecord?) {
            histogram.count == 0 ? (nil, nil) : (RunReport.LatencySummary(histogram), RunReport.HistogramRecord(histogram))
        }
        new = metrics.newConnections
        reused = metrics.reusedConnections
        (connectMs, connectHistogram) = summary(metrics.connectTime)
        (tlsHandshakeMs, tlsHandshakeHistogram) = summary(metrics.tlsHandshakeTime)
        tls = metrics.tlsParameters.isEmpty ? nil : metrics.tlsParameters
        tlsResumed = metrics.tlsParameters.isEmpty ? nil : metrics.tlsResumed
        reconnects = metrics.reconnects
        let used = metrics.protocols.used
        protocols =
            used.isEmpty
            ? nil
            : Dictionary(
                uniqueKeysWithValues: used.map {
                    ($0.wire.rawValue, RunReport.ProtocolUse(attempts: $0.count.attempts, connections: $0.count.connections))
                })
    }
}
