import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport
@testable import SurveyWire

private func configuration(_ load: LoadModel, concurrency: Int, duration: Duration? = nil, shard: Shard = .whole) -> RunConfiguration {
    RunConfiguration(
        load: load, concurrency: concurrency, duration: duration, seed: 5, answers: AnswerBook(fallback: ["x"]),
        retry: RetryPolicies([.submit: retrying(3, on: ["400"])]), shard: shard)
}

@Suite struct RunCoordinatorTests {
    @Test func closedModelRunsExactlyItsConcurrencyAtOnce() async throws {
        // Requests wait at the latch until four are waiting, then the latch stays open: each of
        // the four workers has its respondent's request in flight at that moment, and no fifth
        // worker exists to add one. So the most at once is exactly the concurrency.
        let latch = Latch()
        let transport = ScriptedTransport(gate: latch.wait, survey())
        let coordinator = try RunCoordinator(
            configuration: configuration(.closed(respondents: 40), concurrency: 4), target: target, transport: transport)
        async let run = coordinator.run()
        let allFourWaited = await eventually { transport.inFlight >= 4 }
        latch.open()
        let result = await run
        #expect(allFourWaited)
        #expect(result.metrics.respondentsStarted == 40)
        #expect(result.metrics.respondentsCompleted == 40)
        #expect(transport.maxInFlight == 4)
        #expect(result.stoppedBy == .completed)
    }

    @Test func closedModelRunsOnEventLoops() async throws {
        let group = EventLoopGroup(threads: 2)
        let transport = ScriptedTransport(survey())
        let coordinator = try RunCoordinator(
            configuration: configuration(.closed(respondents: 10), concurrency: 3), target: target, transport: transport,
            executors: group.loops)
        let result = await coordinator.run()
        #expect(result.metrics.respondentsCompleted == 10)
        #expect(result.metrics[.submit].attempts == 30)
        group.shutdown()
    }

    @Test func openModelHoldsItsRate() async throws {
        let clock = VirtualClock()
        let transport = ScriptedTransport(survey())
        let coordinator = try RunCoordinator(
            configuration: configuration(.open(rate: Rate(perSecond: 50), ramp: []), concurrency: 1000, duration: .seconds(20)),
            target: target, transport: transport, clock: clock.clock)
        let result = await coordinator.run()
        // 50/s for 20 s: 1,000 arrivals, all started, the n-th at n × 20 ms. Only the arrival
        // loop sleeps (the transport answers at once and nobody thinks), so virtual time ends
        // at the last arrival: 999 × 20 ms = 19.98 s, to the nanosecond.
        #expect(result.metrics.respondentsStarted == 1000)
        #expect(result.metrics.dropped == 0)
        #expect(result.elapsed == .milliseconds(19_980))
        #expect(clock.sleeps.reduce(0, +) == 19_980_000_000)
    }

    @Test func openModelDropsArrivalsBeyondTheCap() async throws {
        let clock = VirtualClock()
        // No request is answered until the arrival loop has decided every arrival (started or
        // dropped) and every started respondent's request waits at the latch: the first five
        // arrivals fill the cap and hold it to the end, so each of the other 995 is dropped.
        let latch = Latch()
        let transport = ScriptedTransport(gate: latch.wait, survey())
        let coordinator = try RunCoordinator(
            configuration: configuration(.open(rate: Rate(perSecond: 1000), ramp: []), concurrency: 5, duration: .seconds(1)),
            target: target, transport: transport, clock: clock.clock)
        async let run = coordinator.run()
        // The arrival loop runs on the cooperative pool, which other tests may hold for long
        // on a loaded machine: the bound is generous, and only stops a stuck test.
        let allDecided = await eventually(within: 120) {
            let metrics = coordinator.recorder.snapshot()
            return metrics.respondentsStarted + metrics.dropped == 1000 && transport.inFlight == metrics.respondentsStarted
        }
        latch.open()
        let result = await run
        #expect(allDecided)
        #expect(result.metrics.respondentsStarted == 5)
        #expect(result.metrics.dropped == 995)
        #expect(transport.maxInFlight == 5)
    }

    @Test func droppedArrivalsCountInTheIntervalTheyWereDue() async throws {
        // 10/s for 2 s with room for one: the first respondent holds the cap to the end (its
        // request waits at the latch), and each of the other 19 arrivals is dropped. The loop's
        // every sleep ends 600 ms late, so it comes to arrivals due at 0.7, 0.8 and 0.9 s only
        // at 1.3 s: they are still the first second's drops.
        let clock = VirtualClock(oversleep: 600_000_000)
        let latch = Latch()
        let transport = ScriptedTransport(gate: latch.wait, survey())
        var configuration = configuration(.open(rate: Rate(perSecond: 10), ramp: []), concurrency: 1, duration: .seconds(2))
        configuration.timelineInterval = .seconds(1)
        let coordinator = try RunCoordinator(configuration: configuration, target: target, transport: transport, clock: clock.clock)
        async let run = coordinator.run()
        let allDecided = await eventually {
            let metrics = coordinator.recorder.snapshot()
            return metrics.respondentsStarted + metrics.dropped == 20 && transport.inFlight == 1
        }
        latch.open()
        let result = await run
        #expect(allDecided)
        #expect(result.metrics.dropped == 19)
        #expect(result.metrics.timeline.points.map(\.dropped) == [9, 10])
    }

    @Test func shardsTogetherDoTheWholeRun() async throws {
        var whole = RunMetrics()
        var bodies: [String] = []
        for index in 1...3 {
            let transport = ScriptedTransport(survey())
            let coordinator = try RunCoordinator(
                configuration: configuration(.closed(respondents: 10), concurrency: 3, shard: Shard(index: index, count: 3)),
                target: target, transport: transport)
            whole.merge(await coordinator.run().metrics)
            bodies += transport.sent.map(\.body)
        }
        let transport = ScriptedTransport(survey())
        let unsharded = try await RunCoordinator(
            configuration: configuration(.closed(respondents: 10), concurrency: 3), target: target, transport: transport
        )
        .run()
        #expect(whole.respondentsStarted == 10)
        #expect(whole[.submit].attempts == unsharded.metrics[.submit].attempts)
        #expect(bodies.sorted() == transport.sent.map(\.body).sorted())
    }

    @Test func stopEndsTheRunEarly() async throws {
        // The stop comes while both workers' first respondents wait for their questions: each
        // gets them, sees the stop before its first answer, and no worker starts another.
        let latch = Latch()
        let transport = ScriptedTransport(gate: latch.wait, survey())
        let coordinator = try RunCoordinator(
            configuration: configuration(.closed(respondents: 10_000), concurrency: 2), target: target, transport: transport)
        async let run = coordinator.run()
        let bothWaiting = await eventually { transport.inFlight >= 2 }
        coordinator.interrupt()
        latch.open()
        let result = await run
        #expect(bothWaiting)
        #expect(result.stoppedBy == .signal)
        #expect(result.metrics.respondentsStarted == 2)
        #expect(result.metrics.respondentsCompleted == 0)
        #expect(result.metrics.abandoned == [.interrupted: 2])
        #expect(transport.sent.map(\.method) == ["GET", "GET"])
    }

    @Test func shardSharesAddUp() {
        for count in 1...7 {
            for total in [1, 5, 10, 50] {
                let shards = (1...count).map { Shard(index: $0, count: count) }
                #expect(shards.map { $0.count(of: total) }.reduce(0, +) == total)
                if total >= count { #expect(shards.map { $0.share(of: total) }.reduce(0, +) == total) }
            }
        }
    }
}

@Suite struct ArrivalScheduleTests {
    @Test func constantRateArrivesEvenly() {
        let schedule = ArrivalSchedule(rate: Rate(perSecond: 10), ramp: [], duration: .seconds(1))
        #expect(schedule.totalArrivals == 10)
        #expect(schedule.time(ofArrival: 0) == 0)
        #expect(abs((schedule.time(ofArrival: 3) ?? 0) - 0.3) < 1e-9)
        #expect(schedule.time(ofArrival: 10) == nil)
    }

    @Test func rampMovesLinearlyAndTheLastRateHolds() {
        // 0 → 10/s over 10 s: 50 arrivals; then 10/s for 5 s more: 50.
        let schedule = ArrivalSchedule(
            rate: nil, ramp: [RampStage(duration: .seconds(10), target: Rate(perSecond: 10))], duration: .seconds(15))
        #expect(schedule.totalArrivals == 100)
        // The n-th arrival of the ramp comes when t²/2 = n: the 8th at 4 s.
        #expect(abs((schedule.time(ofArrival: 8) ?? 0) - 4) < 1e-9)
        #expect(abs((schedule.time(ofArrival: 60) ?? 0) - 11) < 1e-9)
    }

    @Test func durationCutsTheRamp() {
        let schedule = ArrivalSchedule(
            rate: Rate(perSecond: 10), ramp: [RampStage(duration: .seconds(10), target: Rate(perSecond: 30))], duration: .seconds(5))
        // 10/s → 20/s over the first 5 s: 75 arrivals.
        #expect(schedule.totalArrivals == 75)
        #expect(schedule.time(ofArrival: 75) == nil)
    }
}
