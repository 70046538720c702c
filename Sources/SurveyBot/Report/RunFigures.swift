import SurveyEngine
import SurveyMetrics

/// The figures of a run — counts, rates, throughput and latency of each step and of the
/// whole survey — each defined once, here. Thresholds read them, diff compares them, every
/// renderer shows them, and a report read back from JSON gives the same figures it was written
/// with, because they are derived from its counts and histograms, not stored beside them.
struct RunFigures: Sendable {
    /// The figures of one step, or of every step together (the survey scope).
    struct Calls: Sendable {
        /// Logical calls; a call may take several attempts.
        var calls = 0
        /// HTTP attempts sent.
        var attempts = 0
        /// Attempts not made for want of local resources: in no other figure but `retries`.
        var localResource = 0
        var succeeded = 0
        var firstTrySucceeded = 0
        var failedAttempts = 0
        /// Latency per succeeded attempt from its intended start, in milliseconds; nil when none
        /// succeeded. A report of a version before `failed_histogram` counted failed attempts
        /// in it too: `latencyCoversFailures`.
        var latency: RunReport.LatencySummary?
        /// Whether `latency` counts failed attempts too (a report of an earlier version).
        var latencyCoversFailures = false
        /// Per failed attempt that was timed, its time to fail, in milliseconds; nil when none
        /// was (or the report predates it).
        var timeToFail: RunReport.LatencySummary?
        /// The run's length in seconds, for rates per second.
        var seconds: Double

        /// Attempts beyond the first of each call, those not made for want of local resources
        /// included.
        var retries: Int { attempts + localResource - calls }
        /// Calls that finally succeeded, of all calls.
        var successRate: Double? { ratio(succeeded, calls) }
        /// Calls that succeeded on their first attempt, of all calls.
        var firstTrySuccessRate: Double? { ratio(firstTrySucceeded, calls) }
        /// Attempts that failed, of the attempts sent: one never sent (`local_resource`) is not
        /// the server's failure, and is in neither count.
        var errorRate: Double? { ratio(failedAttempts, attempts) }
        /// Retries sent per call.
        var retriesPerCall: Double? { ratio(retries, calls) }
        /// Attempts per second of the run, to a tenth.
        var attemptsPerSecond: Double { RunFigures.perSecond(attempts, seconds: seconds) }
    }

    /// The report's steps, in the journey's order (`RunReport.stepNames`).
    var steps: [String]
    /// Each step's figures, by name; a step absent from a report is absent here.
    var perStep: [String: Calls]
    /// Every step together, with the latency of their merged histograms.
    var survey: Calls
    /// Respondents who submitted every answer, of the respondents whose survey ended (completed,
    /// with questions unanswered, or abandoned); nil when none has ended.
    var completionRate: Double?
    /// Open model: arrivals dropped because `concurrency` respondents were in flight, of all
    /// arrivals (started and dropped).
    var droppedRate: Double?
    /// How every step's attempts got their connections.
    var connections: Connections

    /// New and reused connections, connect and TLS handshake times, what TLS agreed.
    struct Connections: Sendable {
        var new = 0
        var reused = 0
        var connect: RunReport.LatencySummary?
        var tlsHandshake: RunReport.LatencySummary?
        /// New https connections by protocol version and cipher suite.
        var tls: [String: Int] = [:]
        /// New https connections that resumed an earlier session.
        var tlsResumed = 0
        /// Requests sent again on a new connection after their kept-alive one was found closed.
        var reconnects = 0
        /// Attempts and the connections they opened, by protocol.
        var protocols: [String: RunReport.ProtocolUse] = [:]
    }

    /// The figures of a report: its counts and histograms, read once.
    init(_ report: RunReport) {
        let seconds = report.durationS
        var perStep: [String: Calls] = [:]
        var survey = Calls(seconds: seconds)
        var merged = Histogram()
        var connections = Connections()
        var connect = Histogram()
        var handshake = Histogram()
        // In the journey's order: the merged histogram's sum is the same however the JSON orders them.
        for name in report.stepNames {
            guard let step = report.stepReports[name] else { continue }
            var calls = Calls(
                calls: step.calls, attempts: step.attempts, localResource: step.localResource ?? 0,
                succeeded: step.succeeded,
                firstTrySucceeded: step.firstTrySucceeded, failedAttempts: step.failedAttempts, seconds: seconds)
            // Reports before `null` wrote zeros for a step without attempts: no figure either.
            if step.attempts > 0 && step.correctedHistogram.count > 0 { calls.latency = step.correctedLatencyMs }
            calls.latencyCoversFailures = step.latencyCoversFailures
            calls.timeToFail = step.failedLatencyMs
            perStep[name] = calls
            survey.latencyCoversFailures = survey.latencyCoversFailures || step.latencyCoversFailures
            survey.calls += step.calls
            survey.attempts += step.attempts
            survey.localResource += step.localResource ?? 0
            survey.succeeded += step.succeeded
            survey.firstTrySucceeded += step.firstTrySucceeded
            survey.failedAttempts += step.failedAttempts
            if let histogram = step.correctedHistogram.histogram { merged.merge(histogram) }
            if let part = step.connections {
                connections.new += part.new
                connections.reused += part.reused
                if let histogram = part.connectHistogram?.histogram { connect.merge(histogram) }
                if let histogram = part.tlsHandshakeHistogram?.histogram { handshake.merge(histogram) }
                connections.tls.merge(part.tls ?? [:], uniquingKeysWith: +)
                connections.tlsResumed += part.tlsResumed ?? 0
                connections.reconnects += part.reconnects ?? 0
                connections.protocols.merge(part.protocols ?? [:]) {
                    RunReport.ProtocolUse(attempts: $0.attempts + $1.attempts, connections: $0.connections + $1.connections)
                }
            }
        }
        if connect.count > 0 { connections.connect = RunReport.LatencySummary(connect) }
        if handshake.count > 0 { connections.tlsHandshake = RunReport.LatencySummary(handshake) }
        self.connections = connections
        survey.latency = .of(merged)
        steps = report.stepNames
        self.perStep = perStep
        self.survey = survey
        let respondents = report.respondents
        // Of those whose survey ended: not those cut short by the run's end, nor those still
        // under way in a figure of the run so far. The window closing on a respondent is no
        // failure of its survey; k6 counts its interrupted iterations apart from failed ones.
        completionRate = ratio(respondents.completed, respondents.completed + respondents.finishedWithUnanswered + respondents.abandoned)
        droppedRate = ratio(report.respondents.dropped, report.respondents.started + report.respondents.dropped)
    }

    /// The figures of a scope: one step, or the survey; nil for a step the report does not have.
    func calls(_ scope: Threshold.Scope) -> Calls? {
        switch scope {
        case .step(let name): perStep[name]
        case .survey: survey
        }
    }

    /// A metric of a scope, in the metric's unit (milliseconds, a fraction, a count, per
    /// second); nil when there is nothing to measure, and for a latency when no attempt
    /// succeeded.
    func value(_ metric: Threshold.Metric, of scope: Threshold.Scope) -> Double? {
        guard let figures = calls(scope) else { return nil }
        switch metric {
        case .successRate: return figures.successRate
        case .firstTrySuccessRate: return figures.firstTrySuccessRate
        case .errorRate: return figures.errorRate
        case .retries: return Double(figures.retries)
        case .attemptsPerSecond: return figures.seconds > 0 ? figures.attemptsPerSecond : nil
        case .completionRate: return completionRate
        case .droppedRate: return droppedRate
        case .min, .mean, .p50, .p90, .p95, .p99, .p999, .max:
            // Without a successful attempt there is nothing to time: refusals are fast (and a
            // report of an earlier version counted them in its latency).
            guard figures.attempts > figures.failedAttempts else { return nil }
            return figures.latency?.value(metric)
        }
    }

    /// `count` per second over `seconds`, to a tenth: the one definition of every rate per second.
    static func perSecond(_ count: Int, seconds: Double) -> Double {
        seconds > 0 ? (Double(count) / seconds * 10).rounded() / 10 : 0
    }
}

/// `part / whole`, or nil when there is no whole.
private func ratio(_ part: Int, _ whole: Int) -> Double? {
    whole == 0 ? nil : Double(part) / Double(whole)
}
