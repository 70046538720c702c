import SurveyJourney
import SurveyMetrics
import SurveyWire

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
    /// The index of the data feed's row it takes (`RespondentData.row(forRespondent:)`); -1 for
    /// none.
    let rowIndex: Int
    /// That row's values, made from the feed's compact rows when it starts (`run`); empty for
    /// none. (With `rowIndex`, the 16 bytes an optional index took: no byte more a respondent.)
    var row: [String] = []
    // Internal, not private, for the facets in Respondent+Requests.swift and +Responses.swift.
    /// Its own seeded random stream: answers, order, think times, jitter.
    var random: SplitMix64
    /// The questions, once fetched.
    var questions: [SurveyQuestion] = []
    /// The values captured from its steps' responses, in the order of the journey's captures;
    /// empty until a step captures.
    var session: [String] = []
    /// What the step under way keeps from one call to the next: a step per question's own head
    /// (when variables of its row or session are in it but not the question's), or the answers a
    /// call per survey or per page carries. One word: the two never overlap.
    var kept = StepKeeps.nothing
    /// Whether its step's last attempt succeeded but found a capture missing.
    var captureMissing = false
    /// The position in `questions` of the question its step per question is answering; -1
    /// between them. (Beside `captureMissing`, in what would be padding: no byte more a respondent.)
    var asking: Int32 = -1
    /// The respondent's own cookies, when the run keeps them.
    private(set) var jar = CookieJar()
    /// Its claim on connections of its own, when it holds some (`SurveyContext.ownConnections`):
    /// its requests carry it, and its connections close when it leaves.
    var affinity: ConnectionAffinity?

    init(index: Int, seed: UInt64, startLag: Duration = .zero, lane: Int, row: Int? = nil) {
        self.index = index
        self.startLag = startLag
        self.lane = lane
        rowIndex = row ?? -1
        random = SplitMix64.derived(seed: seed, stream: UInt64(index))
    }

    /// Takes the survey once and records every attempt and the ending.
    ///
    /// The async functions here keep their frames small: every awaiting respondent holds its
    /// frames in its task's memory (slabs of about 1 KB), and ten thousand of them thinking at
    /// once multiply every spilled temporary. The work between two awaits is done by plain
    /// functions (`nextCall`, `settle`, `called`), kept out of line so that their locals live on the
    /// thread's stack, not in the frames.
    @discardableResult
    mutating func run(_ context: SurveyContext) async -> RespondentResult {
        context.recorder.respondentStarted(at: context.sinceRunStart(), lane: lane)
        if rowIndex >= 0 { row = context.rows[rowIndex] }
        if context.ownConnections { affinity = Self.affinity(row: row, context) }
        let result = await takeSurvey(context)
        if let affinity { context.transport.release(affinity) }
        context.recorder.respondentFinished(result, at: context.sinceRunStart(), lane: lane)
        return result
    }

    /// Its own connections, through its row's proxy when the run takes each respondent's from
    /// the data feed (checked before the run: a value that is no proxy URL never gets here).
    private static func affinity(row: [String], _ context: SurveyContext) -> ConnectionAffinity {
        let affinity = ConnectionAffinity(cutoff: context.earlyEnd.cutoff)
        if let column = context.proxyColumn, column < row.count, let proxy = RespondentData.proxy(row[column]) {
            affinity.proxy = proxy
        }
        return affinity
    }

    /// Walks the journey's steps in order: each step run once is called once; the step per
    /// question is called for each question, after its think time and pace. A step run once
    /// that still fails abandons the respondent; only the steps marked `always` run after that.
    ///
    /// One await loop over every call of the journey: `nextCall` says what to send, `called`
    /// what its end leaves behind, both plain functions. A frame per kind of step would put one
    /// more slab of memory under every thinking respondent.
    @inline(never)
    private mutating func takeSurvey(_ context: SurveyContext) async -> RespondentResult {
        if let cause = context.stopCause, cause != .signal {
            // Started as the duration expired or the run ended: not even the first step is sent.
            return RespondentResult(ending: .cutShort, submitted: 0, unanswered: 0)
        }
        var tally = RespondentResult(ending: .completed, submitted: 0, unanswered: 0)
        var place = Place()
        var lastSubmit: UInt64?
        while var next = nextCall(&place, &tally, context) {
            // No think time, no wait: the runner has just asked whether the run is stopping.
            if next.think > 0, await !Self.pause(next.think, lane: lane, context) {
                tally.ending = context.ending(stoppedBy: context.stopCause)
                return tally
            }
            if place.answering, context.pace > 0 {
                if let lastSubmit, await !Self.pause(Self.paceLeft(since: lastSubmit, context), lane: lane, context) {
                    tally.ending = context.ending(stoppedBy: context.stopCause)
                    return tally
                }
                lastSubmit = context.clock.now()
            }
            let ended = await call(next.step, &next.request, context)
            if !called(next.step, ended, &place, &tally, context) { return tally }
        }
        questions = []
        return tally
    }

    /// Where the walk stands: the position of the step it is at, and how far that step's runner
    /// has gone in it.
    struct Place {
        var step = 0
        /// The step's own count, from 0 at each step: the next question of a step per question,
        /// the pages a page loop has posted.
        var round = 0
        /// How many answers the call just planned sends: 0 for a step run once. (No flag of its
        /// own: a byte more in `takeSurvey`'s frame costs a slab per respondent.)
        var answers = 0
        var answering: Bool { answers > 0 }

        /// On to the next step, from its start.
        mutating func moveOn() {
            step += 1
            round = 0
        }
    }

    /// A call to make: the step's position, its request, and the think time before it.
    struct NextCall {
        var step: Int
        var request: HTTPRequest
        var think: UInt64
    }

    /// The next call of the walk from `place`, moving it on; nil when the journey is over, with
    /// `tally` saying how it ended. Each step's runner says what it sends (`StepRunner.next`).
    @inline(never)
    private mutating func nextCall(_ place: inout Place, _ tally: inout RespondentResult, _ context: SurveyContext) -> NextCall? {
        while place.step < context.steps.count {
            let step = context.steps[place.step]
            switch step.runner.next(step, &self, &place, &tally, context) {
            case .call(let next): return next
            case .skip: continue
            case .stop: return nil
            }
        }
        if !tally.isAbandoned, tally.unanswered > 0 || tally.skipped > 0 { tally.ending = .finishedWithUnanswered }
        return nil
    }

    /// Whether every capture `step` uses has a value: a logout after a failed login has no
    /// session to end.
    func hasSession(for step: CompiledStep) -> Bool {
        step.request.sessionSlots.allSatisfy { $0 < session.count && !session[$0].isEmpty }
    }

    /// What a call's end leaves behind, by its step's runner (`StepRunner.called`). False when
    /// the run stopped the call (`tally` then says how the respondent ended).
    @inline(never)
    private mutating func called(
        _ position: Int, _ ended: CallResult, _ place: inout Place, _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool {
        let step = context.steps[position]
        return step.runner.called(step, ended, &self, &place, &tally, context)
    }

    /// Orders the fetched questions as the plan says.
    @inline(never)
    mutating func putInOrder(_ order: QuestionOrder) {
        switch order {
        case .sequential: break
        case .reverse: questions.reverse()
        case .random:
            // The same draws and swaps as the array's own shuffle, each swap a move of memory:
            // the array's swaps copied each question (its text, fields and details retained).
            questions.withUnsafeMutableBufferPointer { $0.shuffle(using: &random) }
        }
    }

    /// What is left of the pace since the last submit started, in nanoseconds.
    @inline(never)
    private static func paceLeft(since lastSubmit: UInt64, _ context: SurveyContext) -> UInt64 {
        let elapsed = context.clock.now() &- lastSubmit
        return elapsed >= context.pace ? 0 : context.pace - elapsed
    }

    /// How a call ended: `notSent` is a failure whose last attempt could not be made for want
    /// of local resources; `stopped`, a call the run's stop ended (`SurveyContext.stopCause`).
    enum CallResult { case succeeded, failed, notSent, stopped }

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
    /// `request` is the caller's, not a copy: each attempt puts the jar's current cookies on it,
    /// and the frames that hold it stay as small as before cookies.
    @inline(never)
    private mutating func call(_ step: Int, _ request: inout HTTPRequest, _ context: SurveyContext) async -> CallResult {
        context.budget.callStarted()
        var state = CallState()
        request.timeout = context.steps[step].timeout
        while true {
            let start = context.clock.now()
            if context.cookies { attachCookies(&request, now: start) }
            // Awaited here, not in a `send` of the transport's: no frame of its own. A head a
            // value filled in would break is never handed to the transport.
            // Decided inside the one continuation, so that `call`'s frame stays as small as it was.
            // On the executor the walk runs on (its loop), with no hop: `withUnsafeContinuation`
            // switches to its `isolation` — none, the generic executor — before it starts the
            // attempt and again once resumed, each switch asking the task for its preferred
            // executor under its status lock; the loop the attempt resumes on is that executor.
            let result = await _unsafeInheritExecutor_withUnsafeContinuation {
                (continuation: UnsafeContinuation<TransportResult, Never>) in
                if let fault = request.template.fault {
                    continuation.resume(returning: .failure(.invalidRequest, requestSent: false, serviceTime: .zero, detail: fault))
                } else {
                    context.transport.start(request, continuation)
                }
            }
            if context.cookies { keepCookies(result, request, context) }
            switch settle(step, result, started: start, state: &state, context) {
            case .done(let ended):
                return ended
            case .retry(let delay):
                if await !Self.pause(delay, lane: lane, context) {
                    context.recorder.endCall(
                        context.steps[step].step, succeeded: false, attempts: state.attempt, retriesDenied: state.denied, lane: lane)
                    return .stopped
                }
                state.attempt += 1
            }
        }
    }

    /// Puts the jar's cookies for the request on it, and asks for the response's.
    @inline(never)
    private mutating func attachCookies(_ request: inout HTTPRequest, now: UInt64) {
        request.collectCookies = true
        request.cookies = jar.isEmpty ? nil : jar.header(for: request.template.cookieOrigin, now: now)
    }

    /// Stores the cookies a response set, whatever its status.
    @inline(never)
    private mutating func keepCookies(_ result: TransportResult, _ request: HTTPRequest, _ context: SurveyContext) {
        let setCookies = result.setCookies
        guard !setCookies.isEmpty else { return }
        jar.store(setCookies, from: request.template.cookieOrigin, now: context.clock.now(), unixTime: context.clock.unixTime())
    }

    /// Classifies and records an attempt, and decides what follows it by the step's policy,
    /// the run's retry budget and whether the run is stopping.
    @inline(never)
    private mutating func settle(
        _ position: Int, _ result: TransportResult, started start: UInt64, state: inout CallState, _ context: SurveyContext
    ) -> Next {
        let compiled = context.steps[position]
        let step = compiled.step
        let outcome: AttemptOutcome
        var retryAfter: Duration?
        var succeeded = false
        var detail: String?
        // Whether the server may have the request of an attempt that got no response.
        var mayHaveArrived = false
        if compiled.readsNothing, let status = result.status, (200..<300).contains(status) {
            // What nearly every attempt is: a 2xx to a step that reads nothing of its response,
            // a success. Its status read where it lies, the result not switched over: a switch
            // copied it first, a retain and a release of each of its references.
            succeeded = true
            outcome = .status(status)
        } else {
            switch result.received {
            case .success(let response):
                let expect = compiled.expect
                if expect?.accepts(response.status) ?? (200..<300).contains(response.status) {
                    // What the step asks of its response, then what it reads: the questions, its captures.
                    var kind = ErrorKind.rejected
                    if let expect { detail = expect.failure(in: response) }
                    if detail == nil {
                        kind = .malformedResponse
                        if compiled.questions != nil { detail = accept(questionsIn: response.body, step: compiled, context) }
                        // Captured even when the questions are wrong, so that a step run `always` can
                        // still end the session; but a page loop's last page (no questions) need not
                        // carry what a next page would need.
                        if !compiled.captures.isEmpty, !compiled.runner.pages || !questions.isEmpty {
                            let missing = capture(compiled, from: response, context)
                            if detail == nil { detail = missing } else { captureMissing = false }
                        }
                    }
                    succeeded = detail == nil
                    outcome = succeeded ? .status(response.status) : .error(kind)
                } else {
                    outcome = .status(response.status)
                    if let header = response.retryAfter, response.status == 429 || response.status == 503 {
                        retryAfter = RetryAfter.delay(header)
                    }
                }
            case .failure(let failure):
                outcome = .error(failure.kind)
                detail = failure.detail
                mayHaveArrived = failure.requestSent
            }
        }
        if !succeeded { detail = failureDetail(result, outcome: outcome, detail: detail, step: compiled, context) }
        let sinceRunStart = context.sinceRunStart(at: start)
        let record = AttemptRecord(
            step: step, attempt: state.attempt, outcome: outcome, succeeded: succeeded, serviceTime: result.serviceTime,
            startLag: startLag, start: sinceRunStart, connection: result.connection, detail: detail)
        if succeeded, context.attemptLog == nil {
            context.recorder.recordSuccess(record, retriesDenied: state.denied, lane: lane)
            return .done(.succeeded)
        }
        context.recorder.record(record, lane: lane)
        if let log = context.attemptLog {
            let question = asking >= 0 && Int(asking) < questions.count ? questions[Int(asking)].id.text : nil
            log.offer(record, result: result, respondent: index, question: question, lane: lane)
        }
        func end(_ ended: CallResult, unsafeRetry: Bool = false) -> Next {
            context.recorder.endCall(
                step, succeeded: ended == .succeeded, attempts: state.attempt, retriesDenied: state.denied, unsafeRetry: unsafeRetry,
                lane: lane)
            if ended == .failed { countRefusal(outcome, context) }
            return .done(ended)
        }
        if succeeded { return end(.succeeded) }
        let decision = compiled.retry.decide(
            afterAttempt: state.attempt, outcome: outcome, retryAfter: retryAfter, previousDelay: state.previousDelay, using: &random)
        let failed: CallResult = outcome == .error(.localResource) ? .notSent : .failed
        let stopping = context.stopCause != nil
        guard case .retry(let delay) = decision, !stopping else {
            return end(stopping ? .stopped : failed)
        }
        // Sent again, a request the server may have taken could be stored twice.
        if mayHaveArrived, !compiled.idempotent { return end(failed, unsafeRetry: true) }
        guard context.budget.withdraw() else {
            state.denied += 1
            return end(failed)
        }
        state.previousDelay = delay
        return .retry(after: delay.clampedNanoseconds)
    }

    /// Waits until `nanoseconds` from now, in slices, so that an interruption is noticed within
    /// 50 ms and the run's deadline on time; false when stopped. How late the wait ended (a
    /// busy loop's timers) is counted as the tool's own lag, in `lane`. Static, so that a call
    /// does not copy the respondent into its caller's frame.
    @inline(never)
    private static func pause(_ nanoseconds: UInt64, lane: Int, _ context: SurveyContext) async -> Bool {
        guard nanoseconds > 0 else { return context.stopCause == nil }
        let clock = context.clock
        var now = clock.now()
        let end = now &+ nanoseconds
        while now < end {
            if context.interruption.isRaised { return false }
            var wait = min(end - now, 50_000_000)
            if let deadline = context.deadline {
                if now >= deadline { return false }
                wait = min(wait, deadline - now)
            }
            await clock.sleep(wait)
            now = clock.now()
        }
        guard context.stopCause == nil else { return false }
        context.recorder.lagged(.timer, by: now - end, at: context.sinceRunStart(at: now), lane: lane)
        return true
    }
}
