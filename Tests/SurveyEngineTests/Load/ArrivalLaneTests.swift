import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// The open model's arrivals, each lane generating its own share: together, exactly the
/// schedule's arrivals of the shard, each once, at exactly its time, on the lane that the
/// shard's k-th arrival belongs to (k mod lanes).
@Suite struct ArrivalLaneTests {
    /// Every arrival of every lane, with its lane.
    private func arrivals(_ schedule: ArrivalSchedule, shard: Shard = .whole, lanes: Int) -> [(ArrivalLane.Arrival, lane: Int)] {
        var all: [(ArrivalLane.Arrival, lane: Int)] = []
        for lane in 0..<lanes {
            var part = ArrivalLane(schedule, shard: shard, lane: lane, of: lanes)
            while let arrival = part.next {
                all.append((arrival, lane))
                part.advance()
            }
        }
        return all.sorted { $0.0.number < $1.0.number }
    }

    @Test(arguments: [1, 2, 3, 8])
    func theLanesTogetherStartEveryArrivalOnceAtItsTime(lanes: Int) {
        // A ramp from 0 to 300/s over 2 s, then 300/s for 1 s: 300 + 300 = 600 arrivals.
        let schedule = ArrivalSchedule(
            rate: nil, ramp: [RampStage(duration: .seconds(2), target: Rate(perSecond: 300))], duration: .seconds(3))
        let all = arrivals(schedule, lanes: lanes)
        #expect(all.map(\.0.number) == Array(0..<600))
        for (arrival, lane) in all {
            let time = schedule.time(ofArrival: arrival.number)!
            #expect(arrival.due == UInt64(time * 1e9), "arrival \(arrival.number)")
            #expect(lane == arrival.number % lanes, "arrival \(arrival.number)")
        }
        // In each lane, in the schedule's order: a lane never waits on a later arrival first.
        for lane in 0..<lanes {
            let dues = all.filter { $0.lane == lane }.map(\.0.due)
            #expect(dues == dues.sorted())
        }
    }

    @Test func shardsSplitTheArrivalsAndEachShardsLanesSplitItsShare() {
        let schedule = ArrivalSchedule(rate: Rate(perSecond: 100), ramp: [], duration: .seconds(1))
        var seen: [Int: Int] = [:]
        for index in 1...3 {
            let shard = Shard(index: index, count: 3)
            let all = arrivals(schedule, shard: shard, lanes: 2)
            #expect(all.allSatisfy { $0.0.number % 3 == index - 1 })
            for (position, (arrival, lane)) in all.enumerated() {
                // The shard's k-th arrival goes to lane k mod 2, its time the schedule's.
                #expect(lane == position % 2)
                #expect(arrival.due == UInt64(schedule.time(ofArrival: arrival.number)! * 1e9))
                seen[arrival.number, default: 0] += 1
            }
        }
        #expect(seen.keys.sorted() == Array(0..<100))
        #expect(seen.values.allSatisfy { $0 == 1 })
    }

    @Test func aRunOnVirtualTimeStartsEveryRespondentAtItsArrivalsTime() async throws {
        // One event loop, and virtual time that moves only when the arrivals sleep — after what
        // is queued on the loop has run (`ArrivalClock`): each respondent's first attempt starts
        // at its arrival's time, to the nanosecond, without lag. A ramp from 0 to 200/s over
        // 1 s, then 200/s for 1 s: 100 + 200 arrivals.
        let group = EventLoopGroup(threads: 1)
        let clock = ArrivalClock()
        let log = AttemptLog(lanes: 1)
        let ramp = [RampStage(duration: .seconds(1), target: Rate(perSecond: 200))]
        let schedule = ArrivalSchedule(rate: nil, ramp: ramp, duration: .seconds(2))
        let configuration = RunConfiguration(
            load: .open(rate: nil, ramp: ramp), concurrency: 1000, duration: .seconds(2), seed: 5, answers: AnswerBook(fallback: ["x"]))
        let result = try await RunCoordinator(
            configuration: configuration, target: target, transport: ScriptedTransport(survey()), clock: clock.clock,
            executors: group.loops, attemptLog: log
        ).run()
        group.shutdown()
        #expect(result.metrics.respondentsStarted == 300)
        #expect(result.metrics.arrivalLag.count == 300)
        #expect(result.metrics.arrivalLag.max == 0)
        var records: [LoggedAttempt] = []
        log.drain(lane: 0, into: &records)
        let firsts = Dictionary(grouping: records.filter { $0.step == .questions && $0.attempt == 1 }, by: \.respondent)
        #expect(firsts.keys.sorted() == Array(0..<300))
        for (respondent, attempts) in firsts {
            #expect(attempts.first?.start == UInt64(schedule.time(ofArrival: respondent)! * 1e9), "respondent \(respondent)")
        }
    }

    @Test func onEventLoopsEachLaneStartsItsShareOnItsOwnLoop() async throws {
        // Three loops, a ramp from 0 to 400 arrivals a second over half a second, without a
        // duration to cut late ones: 100 arrivals, 34, 33 and 33 per lane. Each respondent's
        // requests are sent from its lane's loop: the lane that started it, with no hop to
        // another thread.
        let group = EventLoopGroup(threads: 3)
        let loopOfRequest = Mutex<[Int: Int]>([:])
        let transport = ScriptedTransport { sent, _ in
            if sent.method == "GET", let loop = EventLoop.current?.index { loopOfRequest.withLock { $0[loop, default: 0] += 1 } }
            return survey()(sent, 0)
        }
        let log = AttemptLog(lanes: 3)
        let configuration = RunConfiguration(
            load: .open(rate: nil, ramp: [RampStage(duration: .milliseconds(500), target: Rate(perSecond: 400))]), concurrency: 1000,
            seed: 5, answers: AnswerBook(fallback: ["x"]))
        let result = try await RunCoordinator(
            configuration: configuration, target: target, transport: transport, executors: group.loops, attemptLog: log
        ).run()
        group.shutdown()
        #expect(result.metrics.respondentsStarted == 100)
        #expect(result.metrics.dropped == 0)
        var numbers: [Int] = []
        for lane in 0..<3 {
            var records: [LoggedAttempt] = []
            log.drain(lane: lane, into: &records)
            let respondents = Set(records.map(\.respondent))
            #expect(respondents.allSatisfy { $0 % 3 == lane }, "lane \(lane)")
            numbers += respondents
        }
        #expect(numbers.sorted() == Array(0..<100))
        #expect(loopOfRequest.withLock { $0 } == [0: 34, 1: 33, 2: 33])
    }
}

/// Virtual time for one event loop: a sleep first lets what is queued on the loop run (the
/// respondents just started), then moves time forward, so that whatever those read of the
/// clock is the moment they were started at.
private final class ArrivalClock: Sendable {
    private let now = Mutex<UInt64>(1_000_000_000)

    var clock: EngineClock {
        EngineClock(
            now: { self.now.withLock { $0 } },
            sleep: { nanoseconds in
                await Task.yield()
                self.now.withLock { $0 += nanoseconds }
            })
    }
}
