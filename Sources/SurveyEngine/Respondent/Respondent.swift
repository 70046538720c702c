import Synchronization

/// What every respondent of a run shares: the requests, the answers, the policies, the
/// transport, the clock, where to record, and the stop flag. A class, so that the frames of
/// ten thousand waiting respondents each hold one reference to it rather than a copy.
final class SurveyContext: Sendable {
    let questionsRequest: HTTPRequest.Template
    let submitRequest: HTTPRequest.Template
    let answers: AnswerBook
    let order: QuestionOrder
    let think: DurationRange
    let retry: RetryPolicies
    let budget: RetryBudget
    let transport: any Transport
    let clock: EngineClock
    let recorder: MetricsRecorder
    /// Where every attempt sent is also logged one by one, if anywhere (`--raw`).
    let attemptLog: AttemptLog?
    let stop: StopFlag
    /// The nanosecond reading of `clock` when the run began: attempt start times count from it.
    let runStart: UInt64
    /// When the run's duration expires (a reading of `clock`): no attempt starts from then on,
    /// and respondents still under way are cut short. Nil without a duration.
    let deadline: UInt64?
    /// `deadline` plus the grace: every attempt ends by then (`HTTPRequest.cutoff`).
    let cutoff: UInt64?
    let seed: UInt64
    let questionsCache: QuestionsCache

    /// The context of a run of `configuration` sending `requests`, with its seed resolved.
    init(
        configuration: RunConfiguration, requests: SurveyRequests, seed: UInt64, transport: any Transport, clock: EngineClock,
        recorder: MetricsRecorder, attemptLog: AttemptLog? = nil, stop: StopFlag, runStart: UInt64, lanes: Int = 1
    ) {
        questionsRequest = requests.questions
        submitRequest = requests.submit
        answers = configuration.answers
        order = configuration.order
        think = configuration.think
        retry = configuration.retry
        budget = RetryBudget(configuration.retry.budget)
        self.transport = transport
        self.clock = clock
        self.recorder = recorder
        self.attemptLog = attemptLog
        self.stop = stop
        self.runStart = runStart
        if let duration = configuration.duration {
            let deadline = runStart &+ duration.clampedNanoseconds
            self.deadline = deadline
            cutoff = deadline &+ (configuration.grace ?? configuration.client.timeout).clampedNanoseconds
        } else {
            deadline = nil
            cutoff = nil
        }
        self.seed = seed
        questionsCache = QuestionsCache(lanes: lanes)
    }
}

extension SurveyContext {
    /// Why respondents must stop now, if they must: a stop asked for (a signal) wins over the
    /// run's duration.
    var stopCause: StopCause? {
        if stop.isRaised { return .signal }
        if let deadline, clock.now() >= deadline { return .duration }
        return nil
    }

    /// How a respondent stopped by `cause` before its end ends.
    func ending(stoppedBy cause: StopCause?) -> RespondentResult.Ending {
        cause == .duration ? .cutShort : .abandoned(.interrupted)
    }
}

/// The survey's two requests, built once per run from its API and target.
struct SurveyRequests: Sendable {
    let questions: HTTPRequest.Template
    let submit: HTTPRequest.Template

    /// Throws when either request cannot be framed (`HTTPRequest.Template`).
    init(api: SurveyAPI, target: HTTPTarget) throws(HTTPSyntaxError) {
        questions = try HTTPRequest.Template(
            method: api.questions.method, path: target.basePath + api.questions.path, target: target, headers: api.headers)
        submit = try HTTPRequest.Template(
            method: api.submit.method, path: target.basePath + api.submit.path, target: target,
            headers: api.headers + [HTTPHeader(name: "Content-Type", value: "application/json")])
    }
}

/// Set once when the run must stop starting work: respondents finish the attempt in flight
/// and leave at their next step.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    var isRaised: Bool { raised.load(ordering: .relaxed) }

    func raise() {
        raised.store(true, ordering: .relaxed)
    }
}

/// One virtual survey-taker, doing what the survey app's user does: fetch the questions (with
/// the retry mechanism), then for each question pick an answer, think, submit, and retry a
/// failed submit like the "Failure.... — Retry" banner, never submitting a success twice.
struct Respondent: Sendable {
    /// The respondent's number in the run (across shards): its random stream derives from it.
    let index: Int
    /// How late it started against its intended start (open model), added to its latencies.
    let startLag: Duration
    /// The event-loop lane it records into.
    let lane: Int
    private var random: SplitMix64
    /// The questions, once fetched.
    private var questions: [SurveyQuestion] = []

    init(index: Int, seed: UInt64, startLag: Duration = .zero, lane: Int) {
        self.index = index
        self.startLag = startLag
        self.lane = lane
        random = SplitMix64.derived(seed: seed, stream: UInt64(index))
    }

    /// Takes the survey once and records every attempt and the ending.
    ///
    /// The async functions here keep their frames small: every awaiting respondent holds its
    /// frames in its task's memory (slabs of about 1 KB), and ten thousand of them thinking at
    /// once multiply every spilled temporary. The work between two awaits is done by plain
    /// functions (`settle`, `nextSubmit`), kept out of line so that their locals live on the
    /// thread's stack, not in the frames.
    @discardableResult
    mutating func run(_ context: SurveyContext) async -> RespondentResult {
        context.recorder.respondentStarted(lane: lane)
        let result = await takeSurvey(context)
        context.recorder.respondentFinished(result, lane: lane)
        return result
    }

    private mutating func takeSurvey(_ context: SurveyContext) async -> RespondentResult {
        if context.stopCause == .duration {
            // Started as the duration expired: not even the questions are asked for.
            return RespondentResult(ending: .cutShort, submitted: 0, unanswered: 0)
        }
        var questionsRequest = HTTPRequest(context.questionsRequest, collectBody: true)
        questionsRequest.cutoff = context.cutoff
        switch await call(.questions, questionsRequest, context) {
        case .succeeded: break
        case .failed: return RespondentResult(ending: .abandoned(.questionsUnavailable), submitted: 0, unanswered: 0)
        case .notSent: return RespondentResult(ending: .abandoned(.localResource), submitted: 0, unanswered: 0)
        case .interrupted: return RespondentResult(ending: context.ending(stoppedBy: context.stopCause), submitted: 0, unanswered: 0)
        }
        putInOrder(context.order)
        var tally = RespondentResult(ending: .completed, submitted: 0, unanswered: 0)
        var next = 0
        while next < questions.count {
            let question = next
            next += 1
            if let cause = context.stopCause {
                tally.ending = context.ending(stoppedBy: cause)
                return tally
            }
            guard let submit = nextSubmit(question, context) else {
                tally.unanswered += 1
                continue
            }
            if await !pause(submit.think, context) {
                tally.ending = context.ending(stoppedBy: context.stopCause)
                return tally
            }
            switch await call(.submit, submit.request, context) {
            case .succeeded: tally.submitted += 1
            case .failed, .notSent: tally.unanswered += 1
            case .interrupted:
                tally.unanswered += 1
                tally.ending = context.ending(stoppedBy: context.stopCause)
                return tally
            }
        }
        if tally.unanswered > 0 { tally.ending = .finishedWithUnanswered }
        questions = []
        return tally
    }

    /// Orders the fetched questions as the plan says.
    @inline(never)
    private mutating func putInOrder(_ order: QuestionOrder) {
        switch order {
        case .sequential: break
        case .reverse: questions.reverse()
        case .random: questions.shuffle(using: &random)
        }
    }

    /// The submit of the `index`-th question and the think time before it; nil (and counted as
    /// missing) when the plan has no answer for it.
    @inline(never)
    private mutating func nextSubmit(_ index: Int, _ context: SurveyContext) -> (request: HTTPRequest, think: UInt64)? {
        let question = questions[index]
        guard let choices = context.answers.choices(for: question.id), !choices.isEmpty else {
            context.recorder.answerMissing(lane: lane)
            return nil
        }
        let answer = choices.count == 1 ? choices[0] : choices[Int(random.next() % UInt64(choices.count))]
        let think = context.think.sample(using: &random).clampedNanoseconds
        var request = HTTPRequest(context.submitRequest, body: Self.submitBody(id: question.id, answer: answer))
        request.cutoff = context.cutoff
        return (request, think)
    }

    /// How a call ended: `notSent` is a failure whose last attempt could not be made for want
    /// of local resources.
    private enum CallResult { case succeeded, failed, notSent, interrupted }

    /// Where a call stands between its attempts.
    private struct CallState {
        var attempt = 1
        var previousDelay: Duration?
        var denied = 0
    }

    /// What comes after an attempt: the call's end, or a retry after a delay.
    private enum Next {
        case done(CallResult)
        case retry(after: UInt64)
    }

    /// One logical call with its retries. A questions body must keep the survey contract; one
    /// that does not counts as `malformed_response`.
    private mutating func call(_ endpoint: Endpoint, _ request: HTTPRequest, _ context: SurveyContext) async -> CallResult {
        context.budget.callStarted()
        var state = CallState()
        while true {
            let start = context.clock.now()
            let outcome = await context.transport.send(request)
            switch settle(endpoint, outcome, started: start, state: &state, context) {
            case .done(let result):
                return result
            case .retry(let delay):
                if await !pause(delay, context) {
                    context.recorder.endCall(endpoint, succeeded: false, attempts: state.attempt, retriesDenied: state.denied, lane: lane)
                    return .interrupted
                }
                state.attempt += 1
            }
        }
    }

    /// Classifies and records an attempt, and decides what follows it by the endpoint's policy,
    /// the run's retry budget and the stop flag.
    @inline(never)
    private mutating func settle(
        _ endpoint: Endpoint, _ response: TransportOutcome, started start: UInt64, state: inout CallState, _ context: SurveyContext
    ) -> Next {
        let outcome: AttemptOutcome
        var retryAfter: Duration?
        var succeeded = false
        var detail: String?
        switch response.result {
        case .success(let response):
            if (200..<300).contains(response.status) {
                succeeded = endpoint == .submit || accept(questionsIn: response.body, context)
                outcome = succeeded ? .status(response.status) : .error(.malformedResponse)
            } else {
                outcome = .status(response.status)
                if let header = response.retryAfter, response.status == 429 || response.status == 503 {
                    retryAfter = RetryAfter.delay(header)
                }
            }
        case .failure(let failure):
            outcome = .error(failure.kind)
            detail = failure.detail
        }
        let sinceRunStart = start >= context.runStart ? start - context.runStart : 0
        let record = AttemptRecord(
            endpoint: endpoint, attempt: state.attempt, outcome: outcome, succeeded: succeeded, serviceTime: response.serviceTime,
            startLag: startLag, start: sinceRunStart, connection: response.connection, detail: detail)
        context.recorder.record(record, lane: lane)
        if let log = context.attemptLog { log.offer(record, response: response, respondent: index, lane: lane) }
        func end(_ result: CallResult) -> Next {
            context.recorder.endCall(
                endpoint, succeeded: result == .succeeded, attempts: state.attempt, retriesDenied: state.denied, lane: lane)
            return .done(result)
        }
        if succeeded { return end(.succeeded) }
        let decision = context.retry[endpoint].decide(
            afterAttempt: state.attempt, outcome: outcome, retryAfter: retryAfter, previousDelay: state.previousDelay, using: &random)
        let failed: CallResult = outcome == .error(.localResource) ? .notSent : .failed
        let stopping = context.stopCause != nil
        guard case .retry(let delay) = decision, !stopping else {
            return end(stopping ? .interrupted : failed)
        }
        guard context.budget.withdraw() else {
            state.denied += 1
            return end(failed)
        }
        state.previousDelay = delay
        return .retry(after: delay.clampedNanoseconds)
    }

    /// Reads a questions body, keeping its questions; false when it breaks the contract.
    @inline(never)
    private mutating func accept(questionsIn body: [UInt8], _ context: SurveyContext) -> Bool {
        guard case .success(let list) = context.questionsCache.questions(in: body, lane: lane) else { return false }
        questions = list
        return true
    }

    /// `{"id":<id>,"answer":"<answer>"}`, written as bytes.
    static func submitBody(id: Int, answer: String) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(24 + answer.utf8.count)
        body.append(contentsOf: #"{"id":"#.utf8)
        body.append(contentsOf: String(id).utf8)
        body.append(contentsOf: #","answer":""#.utf8)
        for byte in answer.utf8 {
            switch byte {
            case 0x22: body.append(contentsOf: [0x5C, 0x22])
            case 0x5C: body.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: body.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: body.append(contentsOf: [0x5C, 0x72])
            case 0x09: body.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                body.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: body.append(byte)
            }
        }
        body.append(contentsOf: #""}"#.utf8)
        return body
    }

    /// Waits, in slices, so that a stop is noticed within 50 ms and the run's deadline on time;
    /// false when stopped.
    private func pause(_ nanoseconds: UInt64, _ context: SurveyContext) async -> Bool {
        var left = nanoseconds
        let slice: UInt64 = 50_000_000
        while left > 0 {
            if context.stop.isRaised { return false }
            var step = min(left, slice)
            if let deadline = context.deadline {
                let now = context.clock.now()
                if now >= deadline { return false }
                step = min(step, deadline - now)
            }
            await context.clock.sleep(step)
            left -= step
        }
        return context.stopCause == nil
    }
}
