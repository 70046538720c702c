import Synchronization

/// What every respondent of a run shares: the requests, the answers, the policies, the
/// transport, the clock, where to record, and the stop flag.
struct SurveyContext: Sendable {
    var questionsRequest: HTTPRequest.Template
    var submitRequest: HTTPRequest.Template
    var answers: AnswerBook
    var order: QuestionOrder
    var think: DurationRange
    var retry: RetryPolicies
    var budget: RetryBudget
    var transport: any Transport
    var clock: EngineClock
    var recorder: MetricsRecorder
    var stop: StopFlag
    /// The nanosecond reading of `clock` when the run began: attempt start times count from it.
    var runStart: UInt64
    var seed: UInt64
    var questionsCache: QuestionsCache

    /// The context of a run of `configuration` against `target`, with its seed resolved.
    init(
        configuration: RunConfiguration, target: HTTPTarget, seed: UInt64, transport: any Transport, clock: EngineClock,
        recorder: MetricsRecorder, stop: StopFlag, runStart: UInt64, lanes: Int = 1
    ) {
        let api = configuration.api
        questionsRequest = HTTPRequest.Template(
            method: api.questions.method, path: target.basePath + api.questions.path, target: target, headers: api.headers)
        submitRequest = HTTPRequest.Template(
            method: api.submit.method, path: target.basePath + api.submit.path, target: target,
            headers: api.headers + [HTTPHeader(name: "Content-Type", value: "application/json")])
        answers = configuration.answers
        order = configuration.order
        think = configuration.think
        retry = configuration.retry
        budget = RetryBudget(configuration.retry.budget)
        self.transport = transport
        self.clock = clock
        self.recorder = recorder
        self.stop = stop
        self.runStart = runStart
        self.seed = seed
        questionsCache = QuestionsCache(lanes: lanes)
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

    init(index: Int, seed: UInt64, startLag: Duration = .zero, lane: Int) {
        self.index = index
        self.startLag = startLag
        self.lane = lane
        random = SplitMix64.derived(seed: seed, stream: UInt64(index))
    }

    /// Takes the survey once and records every attempt and the ending.
    @discardableResult
    mutating func run(_ context: SurveyContext) async -> RespondentResult {
        context.recorder.respondentStarted(lane: lane)
        let result = await takeSurvey(context)
        context.recorder.respondentFinished(result, lane: lane)
        return result
    }

    private mutating func takeSurvey(_ context: SurveyContext) async -> RespondentResult {
        var questions: [SurveyQuestion] = []
        let lane = self.lane
        let fetched = await call(.questions, HTTPRequest(context.questionsRequest, collectBody: true), context) { response in
            guard case .success(let list) = context.questionsCache.questions(in: response.body, lane: lane) else { return false }
            questions = list
            return true
        }
        switch fetched {
        case .succeeded: break
        case .failed: return RespondentResult(ending: .abandoned(.questionsUnavailable), submitted: 0, unanswered: 0)
        case .interrupted: return RespondentResult(ending: .abandoned(.interrupted), submitted: 0, unanswered: 0)
        }
        switch context.order {
        case .sequential: break
        case .reverse: questions.reverse()
        case .random: questions.shuffle(using: &random)
        }
        var submitted = 0
        var unanswered = 0
        for question in questions {
            if context.stop.isRaised {
                return RespondentResult(ending: .abandoned(.interrupted), submitted: submitted, unanswered: unanswered)
            }
            guard let choices = context.answers.choices(for: question.id), !choices.isEmpty else {
                context.recorder.answerMissing(lane: lane)
                unanswered += 1
                continue
            }
            let answer = choices.count == 1 ? choices[0] : choices[Int(random.next() % UInt64(choices.count))]
            let think = context.think.sample(using: &random)
            if await !pause(think.clampedNanoseconds, context) {
                return RespondentResult(ending: .abandoned(.interrupted), submitted: submitted, unanswered: unanswered)
            }
            let body = Self.submitBody(id: question.id, answer: answer)
            switch await call(.submit, HTTPRequest(context.submitRequest, body: body), context, accept: { _ in true }) {
            case .succeeded: submitted += 1
            case .failed: unanswered += 1
            case .interrupted:
                unanswered += 1
                return RespondentResult(ending: .abandoned(.interrupted), submitted: submitted, unanswered: unanswered)
            }
        }
        return RespondentResult(
            ending: unanswered == 0 ? .completed : .finishedWithUnanswered, submitted: submitted, unanswered: unanswered)
    }

    private enum CallResult { case succeeded, failed, interrupted }

    /// One logical call with its retries. `accept` checks a 2xx body against the contract; a
    /// body it refuses counts as `malformed_response`.
    private mutating func call(
        _ endpoint: Endpoint, _ request: HTTPRequest, _ context: SurveyContext, accept: (TransportResponse) -> Bool
    ) async -> CallResult {
        let policy = context.retry[endpoint]
        context.budget.callStarted()
        var attempt = 1
        var previousDelay: Duration?
        var denied = 0
        while true {
            let start = context.clock.now()
            let response = await context.transport.send(request)
            let outcome: AttemptOutcome
            var retryAfter: Duration?
            var succeeded = false
            var detail: String?
            switch response.result {
            case .success(let response):
                if (200..<300).contains(response.status) {
                    succeeded = accept(response)
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
            context.recorder.record(
                AttemptRecord(
                    endpoint: endpoint, attempt: attempt, outcome: outcome, succeeded: succeeded, serviceTime: response.serviceTime,
                    startLag: startLag, start: sinceRunStart, connection: response.connection, detail: detail),
                lane: lane)
            if succeeded {
                context.recorder.endCall(endpoint, succeeded: true, attempts: attempt, retriesDenied: denied, lane: lane)
                return .succeeded
            }
            let decision = policy.decide(
                afterAttempt: attempt, outcome: outcome, retryAfter: retryAfter, previousDelay: previousDelay, using: &random)
            guard case .retry(let delay) = decision, !context.stop.isRaised else {
                context.recorder.endCall(endpoint, succeeded: false, attempts: attempt, retriesDenied: denied, lane: lane)
                return context.stop.isRaised ? .interrupted : .failed
            }
            guard context.budget.withdraw() else {
                denied += 1
                context.recorder.endCall(endpoint, succeeded: false, attempts: attempt, retriesDenied: denied, lane: lane)
                return .failed
            }
            if await !pause(delay.clampedNanoseconds, context) {
                context.recorder.endCall(endpoint, succeeded: false, attempts: attempt, retriesDenied: denied, lane: lane)
                return .interrupted
            }
            previousDelay = delay
            attempt += 1
        }
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

    /// Waits, in slices, so that a stop is noticed within 50 ms; false when stopped.
    private func pause(_ nanoseconds: UInt64, _ context: SurveyContext) async -> Bool {
        var left = nanoseconds
        let slice: UInt64 = 50_000_000
        while left > 0 {
            if context.stop.isRaised { return false }
            let step = min(left, slice)
            await context.clock.sleep(step)
            left -= step
        }
        return !context.stop.isRaised
    }
}
