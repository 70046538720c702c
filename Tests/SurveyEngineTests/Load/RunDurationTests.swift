import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A transport on virtual time: each request takes the time `answer` says, ends as a `timeout`
/// at the client's timeout or at the request's cutoff if either comes first (as the event-loop
/// client does), and is remembered with when it started and the cutoff it carried.
private final class TimedTransport: Transport {
    struct Seen: Sendable {
        var method: String
        /// Nanoseconds of the virtual clock.
        var start: UInt64
        var cutoff: UInt64?
    }

    private let clock: VirtualClock
    private let timeout: UInt64
    private let answer: @Sendable (_ method: String, _ previous: Int) -> (latency: Duration, outcome: TransportResult)
    private let state = Mutex<[Seen]>([])

    init(
        clock: VirtualClock, timeout: Duration,
        _ answer: @escaping @Sendable (_ method: String, _ previous: Int) -> (latency: Duration, outcome: TransportResult)
    ) {
        self.clock = clock
        self.timeout = timeout.clampedNanoseconds
        self.answer = answer
    }

    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        let method = request.template.method
        let start = clock.now
        let previous = state.withLock { seen in
            defer { seen.append(Seen(method: method, start: start, cutoff: request.runCutoff?.value)) }
            return seen.filter { $0.method == method }.count
        }
        let (latency, outcome) = answer(method, previous)
        let end = min(start + latency.clampedNanoseconds, request.expiry(startedAt: start, clientTimeout: timeout))
        clock.advance(by: end - start)
        guard end == start + latency.clampedNanoseconds else {
            continuation.resume(returning: .failure(.timeout, requestSent: true, serviceTime: .nanoseconds(Int64(end - start))))
            return
        }
        continuation.resume(returning: outcome)
    }

    func shutdown() async {}

    var seen: [Seen] { state.withLock { $0 } }
}

private let questions: (latency: Duration, outcome: TransportResult) = (.zero, ok(questionsJSON))

private func closedRun(
    duration: Duration, grace: Duration? = nil, think: Duration = .zero, timeout: Duration = .seconds(5),
    submit: RetryPolicy = retrying(3, on: ["timeout"])
) -> RunConfiguration {
    RunConfiguration(
        load: .closed(respondents: 5), concurrency: 1, duration: duration, think: .uniform(DurationRange(fixed: think)), seed: 5,
        answers: AnswerBook(fallback: ["x"]), retry: RetryPolicies([.submit: submit]), client: HTTPClientConfiguration(timeout: timeout),
        grace: grace)
}

/// `duration` is a hard cap: when it expires no attempt starts, an attempt in flight gets at
/// most its grace, and respondents still under way are cut short.
@Suite struct RunDurationTests {
    @Test func aThinkingRespondentIsCutShortAtTheDeadline() async throws {
        // Questions at once; then 300 ms of thought and 100 ms of submit per question: two
        // answers by 800 ms, and the third thought is cut at the 1 s deadline.
        let clock = VirtualClock()
        let transport = TimedTransport(clock: clock, timeout: .seconds(5)) { method, _ in
            method == "GET" ? questions : (.milliseconds(100), ok())
        }
        let start = clock.now
        let result = try await RunCoordinator(
            configuration: closedRun(duration: .seconds(1), think: .milliseconds(300)), target: target, transport: transport,
            clock: clock.clock
        ).run()
        #expect(result.elapsed == .seconds(1))
        #expect(result.stoppedBy == .duration)
        #expect(result.metrics.respondentsStarted == 1)
        #expect(result.metrics.respondentsCutShort == 1)
        #expect(result.metrics.respondentsCompleted == 0)
        #expect(result.metrics.abandoned.isEmpty)
        #expect(result.metrics.answersSubmitted == 2)
        #expect(result.metrics.answersUnanswered == 0, "the third question was never sent")
        #expect(transport.seen.allSatisfy { $0.start < start + 1_000_000_000 })
    }

    @Test func noRetryStartsAfterTheDeadline() async throws {
        // Every submit fails after 100 ms and is retried after 300 ms: attempts at 0, 400 and
        // 800 ms; the backoff after the third is cut at the 1 s deadline.
        let clock = VirtualClock()
        let transport = TimedTransport(clock: clock, timeout: .seconds(5)) { method, _ in
            method == "GET" ? questions : (.milliseconds(100), status(400))
        }
        let policy = RetryPolicy(
            attempts: 100, backoff: Backoff(.constant, initial: .milliseconds(300)), retryOn: try! RetryConditions(names: ["400"]))
        let result = try await RunCoordinator(
            configuration: closedRun(duration: .seconds(1), submit: policy), target: target, transport: transport, clock: clock.clock
        ).run()
        #expect(result.elapsed == .seconds(1))
        #expect(result.metrics[.submit].attempts == 3)
        #expect(result.metrics[.submit].calls == 1)
        #expect(result.metrics[.submit].failed == 1)
        #expect(result.metrics.answersUnanswered == 1, "the question whose retries were cut")
        #expect(result.metrics.respondentsCutShort == 1)
        #expect(result.stoppedBy == .duration)
    }

    @Test(arguments: [(.milliseconds(500), .milliseconds(1500)), (nil, .seconds(5))] as [(Duration?, Duration)])
    func anAttemptInFlightAtTheDeadlineGetsAtMostTheGrace(grace: Duration?, runs expected: Duration) async throws {
        // The first submit hangs. With a 500 ms grace it is cut 1.5 s in; with none, the grace is
        // the timeout, and the attempt's own 5 s timeout comes first.
        let clock = VirtualClock()
        let transport = TimedTransport(clock: clock, timeout: .seconds(5)) { method, _ in
            method == "GET" ? questions : (.seconds(3600), ok())
        }
        let start = clock.now
        let result = try await RunCoordinator(
            configuration: closedRun(duration: .seconds(1), grace: grace), target: target, transport: transport, clock: clock.clock
        ).run()
        let cutoff = start + (Duration.seconds(1) + (grace ?? .seconds(5))).clampedNanoseconds
        #expect(transport.seen.map(\.cutoff) == [cutoff, cutoff])
        #expect(result.elapsed == expected)
        #expect(result.metrics[.submit].errors == [.timeout: 1])
        #expect(result.metrics[.submit].attempts == 1, "not retried after the deadline")
        #expect(result.metrics.respondentsCutShort == 1)
        #expect(result.stoppedBy == .duration)
    }

    @Test func aRunThatEndsBeforeItsDurationIsCompleted() async throws {
        let clock = VirtualClock()
        let transport = TimedTransport(clock: clock, timeout: .seconds(5)) { method, _ in
            method == "GET" ? questions : (.milliseconds(10), ok())
        }
        let result = try await RunCoordinator(
            configuration: closedRun(duration: .seconds(60)), target: target, transport: transport, clock: clock.clock
        ).run()
        #expect(result.stoppedBy == .completed)
        #expect(result.metrics.respondentsCompleted == 5)
        #expect(result.metrics.respondentsCutShort == 0)
    }

    @Test func theOpenModelsDurationIsAHardCapOnRealSockets() async throws {
        // Arrivals at 20/s for 300 ms meet a server that never answers. Each attempt's own
        // timeout is a minute; the 200 ms grace has the client cut them all 500 ms into the run.
        let group = EventLoopGroup(threads: 2)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in .hang }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(60)))
        var result: RunResult?
        try await tearingDown(client, server, group) {
            let configuration = RunConfiguration(
                load: .open(rate: Rate(perSecond: 20), ramp: []), concurrency: 100, duration: .milliseconds(300), seed: 5,
                client: HTTPClientConfiguration(timeout: .seconds(60)), grace: .milliseconds(200))
            result = try await RunCoordinator(configuration: configuration, target: target, transport: client, executors: group.loops).run()
        }
        let run = try #require(result)
        #expect(run.elapsed >= .milliseconds(500))
        // Measured on the loops' threads, from each attempt's start: at most 500 ms, late by the
        // 5 ms deadline sweep and a busy machine — far from the minute an attempt the cap missed
        // would run (never less: a timeout does not fire early). (The run's own end is not timed
        // here: in a full `swift test`, tests that hold the cooperative pool's threads delay the
        // coordinator by seconds. The end-to-end test times a whole run.)
        let longest = Duration.nanoseconds(Int64(run.metrics[.questions].failedLatency.max))
        #expect(longest < .seconds(30), "the longest attempt took \(longest)")
        #expect(run.stoppedBy == .duration)
        // Arrivals a starved arrival loop reaches only after the duration are not started: the
        // cap holds for them too. The first, due at once, always is. A respondent its loop
        // started just as the duration expired is cut before it sends: every attempt that was
        // sent timed out at the grace, and every respondent started was cut short.
        let questions = run.metrics[.questions]
        #expect(run.metrics.respondentsStarted >= 1)
        #expect(questions.attempts >= 1 && questions.attempts <= run.metrics.respondentsStarted)
        #expect(questions.errors == [.timeout: questions.attempts])
        #expect(run.metrics.respondentsCutShort == run.metrics.respondentsStarted)
    }
}
