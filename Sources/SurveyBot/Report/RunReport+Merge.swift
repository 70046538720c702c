import Foundation
import SurveyEngine
import SurveyJourney
import SurveyMetrics
import SurveyWire

extension RunReport {
    /// Why reports cannot be merged: every problem found, each naming its files.
    struct MergeError: Error, CustomStringConvertible {
        var problems: [String]

        init(problems: [String]) {
            self.problems = problems
        }

        init(description: String) {
            problems = [description]
        }

        var description: String { problems.joined(separator: "\n") }
    }

    /// The report one run would have produced from the runs of its shards: counts add,
    /// histograms merge bucket by bucket, percentiles are read again from the merged
    /// histograms, and the thresholds are evaluated again on the whole.
    ///
    /// The reports must be the shards of one run (`run_id`) of one plan (`plan_digest`), each
    /// once, none missing (`checkShards`). With `allowPartial`, missing shards are allowed: the
    /// result is marked `partial`, lists them, and does not pass whatever its thresholds say.
    static func merged(_ parts: [(path: String, report: RunReport)], allowPartial: Bool = false) throws(MergeError) -> RunReport {
        guard let (_, first) = parts.first else { throw MergeError(description: "nothing to merge") }
        let shards: ShardSet
        switch checkShards(parts, allowPartial: allowPartial) {
        case .success(let set): shards = set
        case .failure(let error): throw error
        }
        var metrics = RunMetrics(steps: stepNames(parts.map(\.report)).map(Step.init))
        for (path, report) in parts {
            metrics.merge(try report.metrics(path: path))
        }
        let started = parts.map(\.report.startedAt).min() ?? first.startedAt
        let ended = parts.map(\.report.endedAt).max() ?? first.endedAt
        let duration = parts.map(\.report.durationS).max() ?? first.durationS
        let partial = !shards.missing.isEmpty
        var merged = RunReport(
            schema: schemaVersion, tool: first.tool, name: first.name, passed: true, interrupted: parts.contains { $0.report.interrupted },
            stoppedBy: mergedStopCause(parts.map(\.report)), target: first.target, startedAt: started, endedAt: ended, durationS: duration,
            runID: first.runID, planDigest: first.planDigest, shard: partial ? nil : ShardRecord(index: 1, count: 1),
            partial: partial, missingShards: partial ? shards.missing : nil, mergedShards: shards.merged, seed: first.seed,
            stepReports: StepReport.all(metrics), steps: metrics.steps.map(\.name),
            respondents: Respondents(metrics), answers: Answers(metrics),
            throughput: Throughput(metrics, seconds: duration),
            timeline: try TimelineRecord.merged(parts.map { ($0.path, $0.report.timeline) }),
            thresholds: [], plan: first.plan)
        merged.stoppedByThreshold = parts.lazy.compactMap(\.report.stoppedByThreshold).first
        merged.answers.given = Answers.given(adding: parts.map(\.report.answers.given))
        let beyond = parts.compactMap(\.report.answers.givenBeyondLimit)
        merged.answers.givenBeyondLimit = beyond.isEmpty ? nil : beyond.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
        merged.questions = Questions.merged(parts.map(\.report.questions))
        if !first.keepsFailedLatencyApart {
            // Shards of a version that counted failed attempts in the latency (the checks refuse
            // a mixture): the merge says so as they did, by having no failed_histogram.
            for name in merged.stepReports.keys {
                merged.stepReports[name]?.failedHistogram = nil
                merged.stepReports[name]?.failedLatencyMs = nil
            }
        }
        let local = parts.compactMap(\.report.localResource)
        let limits = local.first { $0.openFilesLimit != nil }
        merged.localResource = RunReport.LocalResource(
            attempts: metrics.localResource, builtinServerAcceptFailures: local.map { $0.builtinServerAcceptFailures ?? 0 }.reduce(0, +),
            openFiles: limits.flatMap { limit in limit.openFilesLimit.map { OpenFilesLimit(soft: $0, hard: limit.openFilesHardLimit ?? $0) }
            })
        merged.lag = try Lag.merged(parts)
        let raws = parts.compactMap(\.report.raw)
        if !raws.isEmpty {
            merged.raw = Raw(lines: raws.map(\.lines).reduce(0, +), dropped: raws.map(\.dropped).reduce(0, +))
        }
        merged.evaluateThresholds(first.thresholds.map(\.threshold))
        return merged
    }

    /// What ended shards run as one: a signal if it ended any, else the duration if it ended
    /// any; `completed` only when every part says so (nil when a part does not say).
    static func mergedStopCause(_ reports: [RunReport]) -> String? {
        let causes = reports.map(\.stoppedBy)
        for cause in [StopCause.signal.rawValue, RunReport.stoppedByThresholdCause, StopCause.duration.rawValue, StopCause.data.rawValue]
        where causes.contains(cause) {
            return cause
        }
        return causes.allSatisfy({ $0 == StopCause.completed.rawValue }) ? StopCause.completed.rawValue : nil
    }

    /// The engine's metrics back from the report's counts and histograms.
    func metrics(path: String) throws(MergeError) -> RunMetrics {
        var metrics = RunMetrics(steps: stepNames.map(Step.init))
        for step in metrics.steps {
            guard let part = stepReports[step.name] else { continue }
            var counts = StepMetrics()
            counts.calls = part.calls
            counts.attempts = part.attempts
            counts.localResource = part.localResource ?? 0
            counts.succeeded = part.succeeded
            counts.failed = part.failed
            counts.firstTrySucceeded = part.firstTrySucceeded
            counts.failedAttempts = part.failedAttempts
            counts.retriesDenied = part.retriesDenied
            counts.retriesUnsafe = part.retriesUnsafe ?? 0
            for (code, count) in part.status {
                guard let status = Int(code) else { throw MergeError(description: "\(path): status '\(code)' is not a number") }
                counts.statuses[status] = count
            }
            // A step whose statuses alone decided has no `failed_status`: all outside 2xx failed.
            if let failed = part.failedStatus {
                for (code, count) in failed {
                    guard let status = Int(code) else { throw MergeError(description: "\(path): status '\(code)' is not a number") }
                    counts.failedStatuses[status] = count
                }
            } else {
                counts.failedStatuses = RunReport.StepReport.failedByDefault(counts.statuses)
            }
            for (name, count) in part.errors {
                if let kind = ErrorKind(name: name) { counts.errors[kind] = count }
            }
            guard let latency = part.correctedHistogram.histogram, let service = part.serviceTimeHistogram.histogram else {
                throw MergeError(description: "\(path): the \(step.name) histogram is damaged")
            }
            counts.correctedLatency = latency
            counts.serviceTime = service
            if let record = part.failedHistogram {
                guard let failed = record.histogram else { throw MergeError(description: "\(path): the \(step.name) histogram is damaged") }
                counts.failedLatency = failed
            }
            if let connections = part.connections {
                counts.newConnections = connections.new
                counts.reusedConnections = connections.reused
                for (record, field) in [
                    (connections.connectHistogram, \StepMetrics.connectTime), (connections.tlsHandshakeHistogram, \.tlsHandshakeTime),
                ] {
                    guard let record else { continue }
                    guard let histogram = record.histogram else {
                        throw MergeError(description: "\(path): a \(step.name) connection histogram is damaged")
                    }
                    counts[keyPath: field] = histogram
                }
                counts.tlsParameters = connections.tls ?? [:]
                counts.tlsResumed = connections.tlsResumed ?? 0
                counts.reconnects = connections.reconnects ?? 0
                for (name, use) in connections.protocols ?? [:] {
                    guard let wire = WireProtocol(rawValue: name) else {
                        throw MergeError(description: "\(path): the \(step.name) connections name an unknown protocol '\(name)'")
                    }
                    counts.protocols[wire] = ProtocolCount(attempts: use.attempts, connections: use.connections)
                }
            }
            for (name, sample) in part.errorSamples ?? [:] {
                if let kind = ErrorKind(name: name) {
                    counts.errorSamples[kind] = sample
                } else if let (status, reason) = RunReport.StepReport.statusSample(sample),
                    name == RunReport.StepReport.statusClass(status)
                {
                    counts.statusSamples[status] = reason
                }
            }
            metrics[step] = counts
        }
        metrics.respondentsStarted = respondents.started
        metrics.respondentsCompleted = respondents.completed
        metrics.respondentsFinishedWithUnanswered = respondents.finishedWithUnanswered
        metrics.respondentsCutShort = respondents.cutShort ?? 0
        for (name, count) in respondents.abandonedReasons {
            guard let reason = AbandonReason(rawValue: name) else {
                throw MergeError(description: "\(path): unknown abandon reason '\(name)'")
            }
            metrics.abandoned[reason] = count
        }
        metrics.dropped = respondents.dropped
        metrics.answersSubmitted = answers.submitted
        metrics.answersUnanswered = answers.unanswered
        metrics.answersSkipped = answers.skipped
        metrics.answersDeclined = answers.declined
        guard throughput.timeline.count == throughput.failuresTimeline.count else {
            throw MergeError(description: "\(path): the throughput timelines differ in length")
        }
        metrics.attemptsPerSecond = throughput.timeline
        metrics.failuresPerSecond = throughput.failuresTimeline
        return metrics
    }
}
