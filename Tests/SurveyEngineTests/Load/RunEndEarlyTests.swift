import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A transport on virtual time whose submits take 100 ms, and which calls `onSubmit` with the
/// number of the submit as it is sent: a test ends the run from there, at a known point.
private final class CountingTransport: Transport {
    private let clock: VirtualClock
    private let submits = Atomic<Int>(0)
    private let starts = Mutex<[UInt64]>([])
    let onSubmit: @Sendable (Int) -> Void

    init(clock: VirtualClock, onSubmit: @escaping @Sendable (Int) -> Void) {
        self.clock = clock
        self.onSubmit = onSubmit
    }

    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        starts.withLock { $0.append(clock.now) }
        guard request.template.method == "POST" else { return continuation.resume(returning: ok(questionsJSON)) }
        onSubmit(submits.wrappingAdd(1, ordering: .relaxed).newValue)
        clock.advance(by: 100_000_000)
        continuation.resume(returning: ok())
    }

    func shutdown() async {}

    var sent: [UInt64] { starts.withLock { $0 } }
}

/// `RunCoordinator.endEarly()`: the run stops as if its duration had just expired, whatever ends
/// it early (a threshold with `abort`, in survey-bot).
@Suite struct RunEndEarlyTests {
    @Test func endingEarlyStopsTheRunLikeItsDuration() async throws {
        let clock = VirtualClock()
        let coordinator = Mutex<RunCoordinator?>(nil)
        let endedAt = Mutex<UInt64?>(nil)
        let transport = CountingTransport(clock: clock) { number in
            guard number == 4 else { return }
            // The fourth submit is on its way when the run is ended: it gets its answer.
            endedAt.withLock { $0 = clock.now }
            coordinator.withLock { $0 }?.endEarly()
        }
        let configuration = RunConfiguration(
            load: .closed(respondents: 5), concurrency: 1, think: .uniform(DurationRange(fixed: .milliseconds(300))), seed: 5,
            answers: AnswerBook(fallback: ["x"]))
        let run = try RunCoordinator(configuration: configuration, target: target, transport: transport, clock: clock.clock)
        coordinator.withLock { $0 = run }
        let result = await run.run()
        #expect(result.stoppedBy == .endedEarly)
        #expect(result.metrics[.submit].attempts == 4, "the submit in flight finished; none started after")
        #expect(result.metrics.answersSubmitted == 4)
        #expect(result.metrics.respondentsCompleted == 1)
        #expect(result.metrics.respondentsCutShort == 1, "the second respondent, under way")
        #expect(result.metrics.respondentsStarted == 2, "no respondent started after")
        let end = try #require(endedAt.withLock { $0 })
        #expect(transport.sent.allSatisfy { $0 <= end })
        #expect(run.hasEndedEarly)
    }

    /// Four respondents against a server that never answers, on real sockets: attempts time out
    /// after a minute, as does the duration, whose grace is 200 ms. `stop` ends the run as the
    /// first request arrives — on the server's loop thread, not on a task that a busy pool could
    /// delay.
    private func runAgainstAHangingServer(stoppedBy stop: @escaping @Sendable (RunCoordinator) -> Void) async throws -> RunResult {
        let group = EventLoopGroup(threads: 2)
        let stopping = Mutex<RunCoordinator?>(nil)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in
            if let run = stopping.withLock({ $0 }) { stop(run) }
            return .hang
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(60)))
        var result: RunResult?
        try await tearingDown(client, server, group) {
            let configuration = RunConfiguration(
                load: .closed(respondents: 4), concurrency: 4, duration: .seconds(60), seed: 5,
                client: HTTPClientConfiguration(timeout: .seconds(60)), grace: .milliseconds(200))
            let run = try RunCoordinator(configuration: configuration, target: target, transport: client, executors: group.loops)
            stopping.withLock { $0 = run }
            result = await run.run()
        }
        let run = try #require(result)
        // Measured on the loops' threads from each attempt's start: about 200 ms, later when a
        // busy machine keeps a loop from its core; an attempt the stop did not cut would run its
        // whole minute (never less: a timeout does not fire early), far above the bound.
        let longest = Duration.nanoseconds(Int64(run.metrics[.questions].failedLatency.max))
        #expect(longest < .seconds(30), "the longest attempt took \(longest)")
        // A respondent its loop started just as the run ended may be cut before it sends: every
        // attempt that was sent timed out at the grace.
        let questions = run.metrics[.questions]
        #expect(questions.attempts >= 1 && questions.attempts <= run.metrics.respondentsStarted)
        #expect(questions.errors == [.timeout: questions.attempts])
        return run
    }

    @Test func endingEarlyGivesAttemptsInFlightTheGraceOnRealSockets() async throws {
        let run = try await runAgainstAHangingServer { $0.endEarly() }
        #expect(run.stoppedBy == .endedEarly)
        #expect(run.metrics.respondentsCutShort == run.metrics.respondentsStarted)
    }

    @Test func aSignalGivesAttemptsInFlightTheGraceLikeTheDurationsEnd() async throws {
        // Before, each attempt ran its whole minute.
        let run = try await runAgainstAHangingServer { $0.interrupt() }
        #expect(run.stoppedBy == .signal)
        #expect(run.metrics.respondentsCompleted == 0)
        #expect(run.metrics.abandoned == [.interrupted: run.metrics.respondentsStarted])
    }

    @Test func endingEarlyWithoutADurationLetsAttemptsRunTheirTimeout() async throws {
        // Without a duration the grace is the timeout: a hanging attempt ends at its own 300 ms.
        // The run is ended as the first request arrives (on the server's loop thread): that
        // attempt is in flight, and with one respondent at a time no other starts.
        let group = EventLoopGroup(threads: 1)
        let ending = Mutex<RunCoordinator?>(nil)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in
            ending.withLock { $0 }?.endEarly()
            return .hang
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .milliseconds(300)))
        var result: RunResult?
        try await tearingDown(client, server, group) {
            let configuration = RunConfiguration(
                load: .closed(respondents: 50), concurrency: 1, seed: 5, client: HTTPClientConfiguration(timeout: .milliseconds(300)))
            let run = try RunCoordinator(configuration: configuration, target: target, transport: client, executors: group.loops)
            ending.withLock { $0 = run }
            result = await run.run()
        }
        let run = try #require(result)
        #expect(run.stoppedBy == .endedEarly)
        #expect(run.metrics.respondentsStarted == 1)
        #expect(run.metrics.respondentsCutShort == 1)
        #expect(run.metrics[.questions].errors == [.timeout: 1])
        // Measured on the loop's thread from the attempt's start: it ran its whole timeout (the
        // deadline sweep ends it at 300 ms or a little after, never before), not cut at the end.
        // A failed attempt's time is its time to fail, kept apart from latencies.
        #expect(run.metrics[.questions].serviceTime.count == 0)
        let timeToFail = Duration.nanoseconds(Int64(run.metrics[.questions].failedLatency.min))
        #expect(timeToFail >= .milliseconds(300), "the attempt took \(timeToFail)")
    }
}
