import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

private let second: UInt64 = 1_000_000_000

private func attempt(
    _ step: Step = .submit, at start: UInt64, _ outcome: AttemptOutcome = .status(200), try number: Int = 1,
    latency: Duration = .milliseconds(5)
) -> AttemptRecord {
    let succeeded = outcome == .status(200)
    return AttemptRecord(step: step, attempt: number, outcome: outcome, succeeded: succeeded, serviceTime: latency, start: start)
}

@Suite struct TimelineTests {
    @Test func attemptsCountInTheIntervalTheyStarted() {
        var timeline = Timeline(interval: second, origin: 0)
        timeline.add(attempt(at: second / 2, latency: .milliseconds(3)))
        timeline.add(attempt(at: second + 1, .status(400), try: 2, latency: .milliseconds(40)))
        timeline.add(attempt(at: 2 * second - 1, .error(.timeout), try: 3))
        timeline.add(attempt(.questions, at: 2 * second - 1, .error(.localResource)))
        #expect(timeline.points.count == 2)
        let first = timeline.points[0][.submit]
        #expect(first.attempts == 1 && first.succeeded == 1 && first.failed == 0 && first.retries == 0)
        let second = timeline.points[1][.submit]
        #expect(second.attempts == 2 && second.succeeded == 0 && second.failed == 2 && second.retries == 2)
        #expect(second.errors == [.timeout: 1])
        #expect(second.failedStatuses == [400: 1])
        // The latency is of succeeded attempts: the failed ones' time to fail is not one.
        #expect(second.latency.isEmpty)
        #expect(first.latency.max == 3_000_000)
        // An attempt never sent is in no count of the timeline.
        #expect(timeline.points[1][.questions].attempts == 0)
    }

    @Test func eachStepHasItsOwnLineTheLoginToo() {
        // A login's attempts are its own, never counted as submits.
        var timeline = Timeline(interval: second, origin: 0)
        timeline.add(attempt(.login, at: 1))
        timeline.add(attempt(.login, at: 2, .status(503)))
        timeline.add(attempt(.questions, at: 3))
        timeline.add(attempt(.submit, at: 4))
        let point = timeline.points[0]
        #expect(point[.login].attempts == 2 && point[.login].failed == 1)
        #expect(point[.questions].attempts == 1)
        #expect(point[.submit].attempts == 1)
        var merged = point
        merged.merge(point, endingEarlierBy: 0)
        #expect(merged[.login].attempts == 4)
    }

    @Test func intervalsLieOnTheWallClockGrid() {
        // The run began 10.7 s into the grid: its first interval is [10 s, 11 s).
        var timeline = Timeline(interval: second, origin: 10 * second + 700_000_000)
        timeline.add(attempt(at: 200_000_000))
        timeline.add(attempt(at: 400_000_000))
        #expect(timeline.start == 10 * second)
        #expect(timeline.points.map { $0[.submit].attempts } == [1, 1])
    }

    @Test func aLongRunDoublesTheIntervalAndKeepsEveryAttempt() {
        // One attempt a second for 1,500 s, starting 1 s into the grid: 1,500 intervals of 1 s
        // are too many, 750 of 2 s too, 376 of 4 s (the first on the grid of 4 s) fit.
        var timeline = Timeline(interval: second, origin: second)
        for time in 0..<1500 { timeline.add(attempt(at: UInt64(time) * second)) }
        #expect(timeline.interval == 4 * second)
        #expect(timeline.start == 0)
        #expect(timeline.points.count == 376)
        #expect(timeline.points.count <= Timeline.maxIntervals)
        #expect(timeline.points.first?[.submit].attempts == 3)
        #expect(timeline.points.dropFirst().dropLast().allSatisfy { $0[.submit].attempts == 4 })
        #expect(timeline.points.map { $0[.submit].attempts }.reduce(0, +) == 1500)
        #expect(timeline.points.map { $0[.submit].latency.count }.reduce(0, +) == 1500)
    }

    @Test func respondentsActiveIsTheMeanNumberUnderWay() {
        var timeline = Timeline(interval: second, origin: 0)
        // One from 0.5 s to 2.5 s, one from 1 s to 1.5 s.
        timeline.respondentStarted(at: second / 2)
        timeline.respondentStarted(at: second)
        timeline.respondentFinished(at: 3 * second / 2)
        timeline.respondentFinished(at: 5 * second / 2)
        #expect(timeline.respondentsActive == [0.5, 1.5, 0.5])
        #expect(timeline.points.map(\.respondentsStarted) == [1, 1, 0])
        timeline.coarsen()
        #expect(timeline.respondentsActive == [1.0, 0.25])
    }

    @Test func lanesMergeIntoTheTimelineOfTheWhole() {
        var whole = Timeline(interval: second, origin: 3 * second / 10)
        var lanes = [whole, whole]
        var random = SplitMix64(seed: 7)
        for number in 0..<4000 {
            // Lane 1 stops early; lane 0 goes on long enough to be coarsened twice.
            let lane = number % 2
            let time = lane == 1 ? random.next() % (100 * second) : random.next() % (2000 * second)
            let outcome: AttemptOutcome = random.next() % 5 == 0 ? .error(.connectionReset) : .status(200)
            let record = attempt(
                number % 3 == 0 ? .questions : .submit, at: time, outcome, latency: .microseconds(Int64(random.next() % 90_000)))
            whole.add(record)
            lanes[lane].add(record)
            whole.respondentStarted(at: time / 2)
            lanes[lane].respondentStarted(at: time / 2)
            whole.respondentFinished(at: time)
            lanes[lane].respondentFinished(at: time)
        }
        var merged = lanes[1]
        merged.merge(lanes[0])
        #expect(lanes[1].interval == second)
        #expect(merged == whole)
        #expect(merged.interval == 4 * second)
    }

    @Test func anOffTimelineRecordsNothing() {
        var timeline = Timeline()
        timeline.add(attempt(at: 0))
        timeline.respondentStarted(at: 0)
        #expect(!timeline.isEnabled)
        #expect(timeline.points.isEmpty)
    }

    @Test func sparseHistogramIsTheDenseOneInGroupsOfFourBuckets() {
        var sparse = SparseHistogram()
        var dense = Histogram()
        // The dense histogram of the same values, each counted in its group's third bucket.
        var grouped = Histogram()
        var random = SplitMix64(seed: 3)
        for _ in 0..<5000 {
            let value = random.next() % 50_000_000
            sparse.record(value)
            dense.record(value)
            grouped.record(Histogram.range(of: Histogram.index(of: value) / 4 * 4 + 2).lower)
        }
        let fromSparse = sparse.histogram
        #expect(fromSparse.buckets.map(\.count) == grouped.buckets.map(\.count))
        #expect(fromSparse.buckets.map(\.lower) == grouped.buckets.map(\.lower))
        #expect((fromSparse.count, fromSparse.sum, fromSparse.min, fromSparse.max) == (dense.count, dense.sum, dense.min, dense.max))
        #expect(sparse.sparseBuckets.count < dense.sparseBuckets.count / 2)
        for percentile in [1.0, 25, 50, 90, 95, 99, 99.9] {
            let exact = Double(dense.value(atPercentile: percentile))
            let read = Double(fromSparse.value(atPercentile: percentile))
            #expect(abs(read - exact) <= exact * 0.04 + 1, "p\(percentile): \(read) against \(exact)")
        }
        // Its report form reads back to the same histogram.
        #expect(SparseHistogram(fromSparse) == sparse)
        #expect(SparseHistogram(dense) == sparse)
    }

    @Test func sparseHistogramsMergeExactly() {
        var random = SplitMix64(seed: 4)
        var whole = SparseHistogram()
        var parts = [SparseHistogram(), SparseHistogram(), SparseHistogram()]
        for step in 0..<3000 {
            let value = random.next() % (step % 3 == 0 ? 2_000 : 80_000_000)
            whole.record(value)
            parts[Int(random.next() % 3)].record(value)
        }
        var merged = SparseHistogram()
        for part in parts { merged.merge(part) }
        #expect(merged.count == whole.count)
        #expect(merged.sparseBuckets.map(\.index) == whole.sparseBuckets.map(\.index))
        #expect(merged.sparseBuckets.map(\.count) == whole.sparseBuckets.map(\.count))
        #expect((merged.min, merged.max) == (whole.min, whole.max))
        var other = SparseHistogram()
        other.record(7)
        merged.merge(other)
        whole.record(7)
        #expect(merged.sparseBuckets.map(\.count) == whole.sparseBuckets.map(\.count))
    }
}

@Suite struct RunTimelineTests {
    @Test func anOpenRunHasOnePointPerIntervalWithItsArrivals() async throws {
        let clock = VirtualClock()
        var configuration = RunConfiguration(
            load: .open(rate: Rate(perSecond: 50), ramp: []), concurrency: 1000, duration: .seconds(4), seed: 5,
            answers: AnswerBook(fallback: ["x"]))
        configuration.timelineInterval = .milliseconds(500)
        let coordinator = try RunCoordinator(
            configuration: configuration, target: target, transport: ScriptedTransport(survey()), clock: clock.clock)
        let result = await coordinator.run()
        let timeline = result.metrics.timeline
        // 50/s for 4 s in intervals of 0.5 s: 200 arrivals over 8 intervals, each fetching the
        // questions once. (A respondent's task may start a little after its arrival, in virtual
        // time too, so a count may move to the next interval.)
        #expect(timeline.interval == 500_000_000)
        #expect(timeline.points.count == 8)
        #expect(timeline.points.map(\.respondentsStarted).reduce(0, +) == 200)
        #expect(timeline.points.map { $0[.questions].attempts }.reduce(0, +) == 200)
        #expect(timeline.points.allSatisfy { $0.respondentsStarted >= 20 })
        #expect(timeline.respondentsActive.allSatisfy { $0 >= 0 })
        #expect(timeline.points.map { $0[.submit].attempts }.reduce(0, +) == result.metrics[.submit].attempts)
    }

    @Test func aRunWithoutIntervalHasNoTimeline() async throws {
        var configuration = RunConfiguration(load: .closed(respondents: 3), seed: 5, answers: AnswerBook(fallback: ["x"]))
        configuration.timelineInterval = nil
        let coordinator = try RunCoordinator(
            configuration: configuration, target: target, transport: ScriptedTransport(survey()), clock: VirtualClock().clock)
        let result = await coordinator.run()
        #expect(result.metrics.respondentsCompleted == 3)
        #expect(!result.metrics.timeline.isEnabled && result.metrics.timeline.points.isEmpty)
    }
}
