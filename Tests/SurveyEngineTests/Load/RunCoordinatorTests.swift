import Testing

@testable import SurveyEngine

private func configuration(_ load: LoadModel, concurrency: Int, duration: Duration? = nil, shard: Shard = .whole) -> RunConfiguration {
    RunConfiguration(
        load: load, concurrency: concurrency, duration: duration, seed: 5, answers: AnswerBook(fallback: ["x"]),
        retry: RetryPolicies(submit: retrying(3, on: ["400"])), shard: shard)
}

@Suite struct RunCoordinatorTests {
    @Test func closedModelNeverExceedsItsConcurrency() async {
        let transport = ScriptedTransport(delay: .milliseconds(1), survey())
        let coordinator = RunCoordinator(
            configuration: configuration(.closed(respondents: 40), concurrency: 4), target: target, transport: transport)
        let result = await coordinator.run()
        #expect(result.metrics.respondentsStarted == 40)
        #expect(result.metrics.respondentsCompleted == 40)
        #expect(transport.maxInFlight <= 4)
        #expect(transport.maxInFlight >= 2)
        #expect(!result.interrupted)
    }

    @Test func closedModelRunsOnEventLoops() async {
        let group = EventLoopGroup(threads: 2)
        let transport = ScriptedTransport(survey())
        let coordinator = RunCoordinator(
            configuration: configuration(.closed(respondents: 10), concurrency: 3), target: target, transport: transport,
            executors: group.loops)
        let result = await coordinator.run()
        #expect(result.metrics.respondentsCompleted == 10)
        #expect(result.metrics.submit.attempts == 30)
        group.shutdown()
    }

    @Test func openModelHoldsItsRate() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(survey())
        let coordinator = RunCoordinator(
            configuration: configuration(.open(rate: Rate(perSecond: 50), ramp: []), concurrency: 1000, duration: .seconds(20)),
            target: target, transport: transport, clock: clock.clock)
        let result = await coordinator.run()
        // 50/s for 20 s: 1,000 arrivals, all started; the arrivals span the 20 s.
        #expect(result.metrics.respondentsStarted == 1000)
        #expect(result.metrics.dropped == 0)
        let rate = Double(result.metrics.respondentsStarted) / result.elapsed.seconds
        #expect(abs(rate - 50) / 50 < 0.02)
    }

    @Test func openModelDropsArrivalsBeyondTheCap() async {
        let clock = VirtualClock()
        // No request is answered before the last arrival: only the first five can ever start.
        let transport = ScriptedTransport(
            gate: {
                while clock.now < 1_999_000_000 { try? await Task.sleep(for: .milliseconds(1)) }
            }, survey())
        let coordinator = RunCoordinator(
            configuration: configuration(.open(rate: Rate(perSecond: 1000), ramp: []), concurrency: 5, duration: .seconds(1)),
            target: target, transport: transport, clock: clock.clock)
        let result = await coordinator.run()
        // Five start at once; a sixth may slip in at the very last arrival, when the gate opens.
        #expect(result.metrics.respondentsStarted + result.metrics.dropped == 1000)
        #expect((5...6).contains(result.metrics.respondentsStarted))
        #expect(transport.maxInFlight <= 5)
    }

    @Test func shardsTogetherDoTheWholeRun() async {
        var whole = RunMetrics()
        var bodies: [String] = []
        for index in 1...3 {
            let transport = ScriptedTransport(survey())
            let coordinator = RunCoordinator(
                configuration: configuration(.closed(respondents: 10), concurrency: 3, shard: Shard(index: index, count: 3)),
                target: target, transport: transport)
            whole.merge(await coordinator.run().metrics)
            bodies += transport.sent.map(\.body)
        }
        let transport = ScriptedTransport(survey())
        let unsharded = await RunCoordinator(
            configuration: configuration(.closed(respondents: 10), concurrency: 3), target: target, transport: transport
        )
        .run()
        #expect(whole.respondentsStarted == 10)
        #expect(whole.submit.attempts == unsharded.metrics.submit.attempts)
        #expect(bodies.sorted() == transport.sent.map(\.body).sorted())
    }

    @Test func stopEndsTheRunEarly() async {
        let transport = ScriptedTransport(delay: .milliseconds(2), survey())
        let coordinator = RunCoordinator(
            configuration: configuration(.closed(respondents: 10_000), concurrency: 2), target: target, transport: transport)
        Task {
            try? await Task.sleep(for: .milliseconds(30))
            coordinator.stop()
        }
        let result = await coordinator.run()
        #expect(result.interrupted)
        #expect(result.metrics.respondentsStarted < 10_000)
        #expect(result.metrics.respondentsStarted == result.metrics.respondentsCompleted + result.metrics.respondentsAbandoned)
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
