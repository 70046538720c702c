import SurveyJourney
import Synchronization

/// Collects attempt records and respondent results from every respondent at once: one lane
/// per event loop (or per worker) so that recording does not contend, added up when read.
/// Nothing is shared between lanes on the hot path, not even a counter.
public final class MetricsRecorder: Sendable {
    private final class Lane: Sendable {
        let metrics: Mutex<RunMetrics>

        init(steps: [Step]) {
            metrics = Mutex(RunMetrics(steps: steps))
        }
    }

    private let lanes: [Lane]

    /// A recorder with `lanes` independent parts (at least one), counting the figures of
    /// `steps` in that order; callers pass their lane's number, taken modulo the count.
    package init(lanes: Int, steps: [Step] = SurveyAPI().journey.names) {
        self.lanes = (0..<max(1, lanes)).map { _ in Lane(steps: steps) }
    }

    private func lane(_ number: Int, _ body: (inout sending RunMetrics) -> Void) {
        lanes[number % lanes.count].metrics.withLock { body(&$0) }
    }

    /// Counts one HTTP attempt.
    package func record(_ record: AttemptRecord, lane number: Int) {
        lane(number) { $0.add(record) }
    }

    /// Whether a failed attempt of `step` that ended as `outcome` would be the first of its
    /// kind, or of its class of status, to give the step a sample of why in `lane`: the
    /// reason is worth making only then (or for the raw log).
    package func wantsSample(of outcome: AttemptOutcome, step: Step, lane number: Int) -> Bool {
        lanes[number % lanes.count].metrics.withLock { $0[step].wantsSample(of: outcome) }
    }

    /// Counts one logical call that ended after `attempts` attempts, with the retries the
    /// budget refused it.
    package func endCall(_ step: Step, succeeded: Bool, attempts: Int, retriesDenied: Int, unsafeRetry: Bool = false, lane number: Int) {
        lane(number) {
            $0[step].endCall(succeeded: succeeded, attempts: attempts)
            $0[step].retriesDenied += retriesDenied
            if unsafeRetry { $0[step].retriesUnsafe += 1 }
        }
    }

    /// Counts an attempt that succeeded, and the call it ended with `record.attempt` attempts and
    /// `retriesDenied` retries the budget refused: `record` and `endCall` under one lock, for
    /// the attempt nearly every call ends with.
    package func recordSuccess(_ record: AttemptRecord, retriesDenied: Int, lane number: Int) {
        lane(number) {
            $0.add(record)
            $0[record.step].endCall(succeeded: true, attempts: record.attempt)
            $0[record.step].retriesDenied += retriesDenied
        }
    }

    /// Counts `event` for question `id`.
    package func question(_ id: QuestionID, _ event: QuestionEvent, lane number: Int) {
        lane(number) { $0.questions.update(id) { $0.add(event) } }
    }

    /// Counts two events for question `id` in one update: a step per question's question shown
    /// and what came of it at once.
    package func question(_ id: QuestionID, _ event: QuestionEvent, then next: QuestionEvent, lane number: Int) {
        lane(number) {
            $0.questions.update(id) { figures in
                figures.add(event)
                figures.add(next)
            }
        }
    }

    /// Counts `event` for each question of `ids`, under one lock: the answers one call carried.
    package func questions(_ ids: some Sequence<QuestionID>, _ event: QuestionEvent, lane number: Int) {
        lane(number) { metrics in
            for id in ids { metrics.questions.update(id) { $0.add(event) } }
        }
    }

    /// Counts an answer given to question `id`, by its value; with `choice` (the plan's
    /// `choice`-th, or `RunMetrics.fromData`), also in `RunMetrics.answersGiven`.
    package func answerValue(_ id: QuestionID, _ value: AnswerValue, choice: Int? = nil, shown: Bool = false, lane number: Int) {
        lane(number) {
            $0.questions.update(id) { figures in
                if shown { figures.add(.shown) }
                figures.add(value)
            }
            if let choice { $0.countGiven(id, choice: choice) }
        }
    }

    /// Starts every lane's timeline: intervals of `interval` nanoseconds (0: no timeline) for
    /// a run that begins at `origin` nanoseconds since 1970. Call it before anything is recorded.
    package func startTimeline(interval: UInt64, origin: UInt64) {
        for number in lanes.indices { lane(number) { $0.timeline = Timeline(interval: interval, origin: origin, steps: $0.steps) } }
    }

    /// Counts a respondent that began the survey `time` nanoseconds after the run began.
    package func respondentStarted(at time: UInt64, lane number: Int) {
        lane(number) {
            $0.respondentsStarted += 1
            $0.timeline.respondentStarted(at: time)
        }
    }

    /// Counts how a respondent's survey ended, `time` nanoseconds after the run began.
    package func respondentFinished(_ result: RespondentResult, at time: UInt64, lane number: Int) {
        lane(number) {
            $0.add(result)
            $0.timeline.respondentFinished(at: time)
        }
    }

    /// Counts an open-model arrival not started because the concurrency cap was reached, `time`
    /// nanoseconds after the run began.
    package func dropped(at time: UInt64, lane number: Int) {
        lane(number) {
            $0.dropped += 1
            $0.timeline.dropped(at: time)
        }
    }

    /// Counts how late the tool did something it had set a time for, `time` nanoseconds after
    /// the run began: an open-model respondent that started `nanoseconds` after its arrival was
    /// due (`.arrival`), or a wait that ended that long after its end (`.timer`).
    package func lagged(_ kind: Lag, by nanoseconds: UInt64, at time: UInt64, lane number: Int) {
        lane(number) {
            switch kind {
            case .arrival: $0.arrivalLag.record(nanoseconds)
            case .timer: $0.timerLag.record(nanoseconds)
            }
            $0.timeline.lagged(by: nanoseconds, at: time)
        }
    }

    /// What was late: see `lagged(_:by:at:lane:)`.
    package enum Lag {
        case arrival
        case timer
    }

    /// The counters a live progress line shows, read without copying histograms. Safe from any
    /// thread while the run goes on; lanes are read one after another, not at one instant.
    public var progress: RunProgress {
        var progress = RunProgress()
        for lane in lanes {
            lane.metrics.withLock { metrics in
                progress.respondentsStarted += metrics.respondentsStarted
                progress.respondentsFinished +=
                    metrics.respondentsCompleted + metrics.respondentsFinishedWithUnanswered + metrics.respondentsAbandoned
                    + metrics.respondentsCutShort
                progress.attempts += metrics.attempts
                progress.failedAttempts += metrics.failedAttempts
                progress.localResource += metrics.localResource
            }
        }
        return progress
    }

    /// Everything recorded so far, added up: the run's final figures once
    /// `RunCoordinator.run()` has returned. Copies every lane's histograms.
    public func snapshot() -> RunMetrics {
        var total = lanes[0].metrics.withLock { RunMetrics(steps: $0.steps) }
        for lane in lanes {
            let part = lane.metrics.withLock { $0 }
            total.merge(part)
        }
        return total
    }
}

/// How far a run has come: the counters of a progress line.
public struct RunProgress: Sendable, Hashable {
    /// Respondents that began the survey.
    var respondentsStarted = 0
    /// Respondents whose survey ended, however it ended.
    public var respondentsFinished = 0
    /// HTTP attempts made.
    public var attempts = 0
    /// HTTP attempts that failed.
    public var failedAttempts = 0
    /// Attempts not made because this process ran out of descriptors or local ports.
    public var localResource = 0

    /// Nothing done yet.
    init() {}
}
