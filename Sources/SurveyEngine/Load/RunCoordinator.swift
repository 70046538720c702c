import SurveyJourney
import SurveyMetrics
import SurveyWire
import Synchronization

/// Runs a survey load: owns the task group of respondents, starts them by the load model, and
/// stops starting them when the run is interrupted, ends early or runs out of time or rows.
///
/// Respondents run as children of one group. Given event loops as executors, each respondent
/// prefers one of them, so its requests and its continuations stay on that loop's thread.
public actor RunCoordinator {
    /// What the run does; its seed is resolved (never nil).
    nonisolated let configuration: RunConfiguration
    /// Where the run sends its requests.
    nonisolated let target: HTTPTarget
    /// Where every attempt is counted; readable while the run goes on.
    public nonisolated let recorder: MetricsRecorder
    /// Raised by `interrupt()`.
    private nonisolated let interruption = OnceFlag()
    /// Set by `endEarly()`; gives attempts in flight the run's grace.
    private nonisolated let earlyEnd: EarlyEnd
    /// Raised when the duration expired with respondents still to start.
    private nonisolated let durationCut = OnceFlag()
    /// Raised when the data feed's rows ran out with respondents still to start.
    private nonisolated let dataCut = OnceFlag()
    /// Where every attempt is also logged one by one, if anywhere.
    private nonisolated let attemptLog: AttemptLog?
    private let transport: any Transport
    private let clock: EngineClock
    private let executors: [any TaskExecutor]
    /// Built when the coordinator is made: a run whose requests cannot be framed never starts.
    private let requests: SurveyRequests

    /// A run of `configuration` against `target` through `transport`. A configuration without
    /// a seed gets a random one, kept in `configuration.seed`. Given event loops as
    /// `executors`, respondents run on them (one lane each); without, on the global pool.
    ///
    /// The coordinator neither starts nor shuts down the transport or the loops: their owner
    /// does, after `run()` has returned.
    ///
    /// With an `attemptLog`, every attempt sent (not those never sent for want of a local
    /// resource) is also offered to it, in the lane it is recorded in.
    ///
    /// Throws, before anything is sent, when the survey's requests cannot be framed: a path,
    /// method, host or header that `HTTPRequest.Template` refuses, a variable that names no
    /// column or capture or is used where it has no value, or a data row whose value cannot go
    /// where the API uses it (`RespondentData.problems`).
    public init(
        configuration: RunConfiguration, target: HTTPTarget, transport: any Transport, clock: EngineClock = .system,
        executors: [any TaskExecutor] = [], attemptLog: AttemptLog? = nil
    ) throws(HTTPSyntaxError) {
        requests = try SurveyRequests(
            journey: configuration.journey, headers: configuration.api.headers, target: target, columns: configuration.data?.columns ?? [],
            types: configuration.answers.types)
        if let problem = configuration.data?.problems(for: configuration, limit: 1).first {
            throw HTTPSyntaxError("data row \(problem.row + 1): \(problem.description)", offset: 0)
        }
        var configuration = configuration
        configuration.seed = configuration.seed ?? UInt64.random(in: 0...999_999)
        self.configuration = configuration
        earlyEnd = EarlyEnd(grace: configuration.effectiveGrace)
        self.target = target
        self.transport = transport
        self.clock = clock
        self.executors = executors
        self.attemptLog = attemptLog
        recorder = MetricsRecorder(lanes: max(1, executors.count), steps: configuration.journey.names)
    }

    /// Interrupts the run, as a signal does: no respondent starts any more; the ones running
    /// finish their attempt in flight — given at most the grace, as when the duration ends — and
    /// leave, abandoned (`interrupted`). Safe from any thread, returns at once, and a second call
    /// changes nothing.
    public nonisolated func interrupt() {
        interruption.raise()
        earlyEnd.cutAttemptsInFlight(from: clock.now())
    }

    /// Whether `interrupt()` was called.
    public nonisolated var isInterrupted: Bool { interruption.isRaised }

    /// Ends the run now as its duration would end it: no attempt starts from now on (no new
    /// respondent, submit or retry; a think time or backoff is cut), an attempt in flight gets
    /// at most the grace (the plan's `grace` with a duration, else the attempt timeout), and
    /// respondents still under way are cut short. The result says `.endedEarly`. Safe from any
    /// thread, returns at once; a second call, or one after an `interrupt()`, changes nothing.
    public nonisolated func endEarly() {
        earlyEnd.end(at: clock.now())
    }

    /// Whether `endEarly()` was called.
    public nonisolated var hasEndedEarly: Bool { earlyEnd.deadline != nil }

    /// Runs the whole load and returns what it measured, once every respondent has ended.
    /// Call it once: a second run would count into the same `recorder`.
    public func run() async -> RunResult {
        let runStart = clock.now()
        recorder.startTimeline(interval: configuration.timelineInterval?.clampedNanoseconds ?? 0, origin: clock.wall())
        let context = SurveyContext(
            configuration: configuration, requests: requests, seed: configuration.seed ?? 0, transport: transport, clock: clock,
            recorder: recorder, attemptLog: attemptLog, interruption: interruption, runStart: runStart, lanes: max(1, executors.count),
            earlyEnd: earlyEnd)
        switch configuration.load {
        case .closed(let respondents):
            await runClosed(respondents: respondents, context: context)
        case .open:
            if let schedule = configuration.load.schedule(duration: configuration.duration) {
                await runOpen(schedule, context: context)
            }
        }
        let elapsed = clock.now() &- runStart
        let metrics = recorder.snapshot()
        let stoppedBy: StopCause
        if interruption.isRaised {
            stoppedBy = .signal
        } else if let early = earlyEnd.deadline, early < (context.durationDeadline ?? .max) {
            stoppedBy = .endedEarly
        } else if durationCut.isRaised || metrics.respondentsCutShort > 0 {
            stoppedBy = .duration
        } else if dataCut.isRaised {
            stoppedBy = .data
        } else {
            stoppedBy = .completed
        }
        return RunResult(
            metrics: metrics, stoppedBy: stoppedBy, elapsed: .nanoseconds(Int64(elapsed)))
    }

    private func runClosed(respondents: Int, context: SurveyContext) async {
        let shard = configuration.shard
        let count = min(shard.share(of: configuration.concurrency), max(1, shard.count(of: respondents)))
        let workers = ClosedWorkers(
            respondents: respondents, shard: shard, data: configuration.data, clock: clock, durationCut: durationCut, dataCut: dataCut,
            context: context)
        await withDiscardingTaskGroup { group in
            for worker in 0..<count {
                Self.start({ @concurrent in await workers.run(worker) }, lane: worker, on: executors, in: &group)
            }
        }
    }

    /// The open model: each lane generates its own share of the arrivals (`ArrivalLane`) on
    /// its own executor, sleeping on that loop's timers until its next arrival is due and then
    /// starting every arrival that is due, on its own thread: no arrival crosses a thread, and
    /// a wake-up serves as many arrivals as fell due while the loop was busy.
    private func runOpen(_ schedule: ArrivalSchedule, context: SurveyContext) async {
        let lanes = max(1, executors.count)
        let arrivals = OpenArrivals(
            schedule: schedule, shard: configuration.shard, cap: configuration.shard.share(of: configuration.concurrency),
            data: configuration.data, clock: clock, recorder: recorder, executors: executors, durationCut: durationCut,
            dataCut: dataCut, context: context)
        await withDiscardingTaskGroup { group in
            for lane in 0..<lanes {
                Self.start({ @concurrent in await arrivals.run(lane: lane, of: lanes) }, lane: lane, on: executors, in: &group)
            }
        }
    }
}

/// What the closed model's workers share: the respondents to take one after another, the run's
/// context, and the flags that say why they stopped. One reference, so that each worker's task
/// (one per respondent of the concurrency, ten thousand of them thinking at once) captures it
/// and its number — 32 bytes — rather than a copy of every value here.
private final class ClosedWorkers: Sendable {
    let respondents: Int
    let shard: Shard
    let data: RespondentData?
    let clock: EngineClock
    let durationCut: OnceFlag
    let dataCut: OnceFlag
    let context: SurveyContext
    /// The next respondent's place in the shard's share, handed out to whichever worker is free.
    private let next = Atomic<Int>(0)

    init(
        respondents: Int, shard: Shard, data: RespondentData?, clock: EngineClock, durationCut: OnceFlag, dataCut: OnceFlag,
        context: SurveyContext
    ) {
        self.respondents = respondents
        self.shard = shard
        self.data = data
        self.clock = clock
        self.durationCut = durationCut
        self.dataCut = dataCut
        self.context = context
    }

    /// Worker `worker`'s respondents, one after another, until none is left to start, the
    /// duration expired, the rows ran out or the run was interrupted.
    func run(_ worker: Int) async {
        while !context.interruption.isRaised {
            let number = next.wrappingAdd(1, ordering: .relaxed).oldValue * shard.count + (shard.index - 1)
            guard number < respondents else { return }
            if let deadline = context.deadline, clock.now() >= deadline {
                durationCut.raise()
                return
            }
            guard case .take(let row) = RunCoordinator.row(forRespondent: number, data, shard, context.seed, ranOut: dataCut) else {
                return
            }
            var respondent = Respondent(index: number, seed: context.seed, lane: worker, row: row)
            await respondent.run(context)
        }
    }
}

/// What the open model's lanes share: the schedule, the concurrency cap (arrivals beyond it
/// are dropped, counted where they were due), the run's context, and the flags that say why
/// arrivals stopped. One reference, which each arrival's task captures with the few values of
/// its own, rather than a copy of every value here.
private final class OpenArrivals: Sendable {
    let schedule: ArrivalSchedule
    let shard: Shard
    let cap: Int
    let data: RespondentData?
    let clock: EngineClock
    let recorder: MetricsRecorder
    let executors: [any TaskExecutor]
    let durationCut: OnceFlag
    let dataCut: OnceFlag
    let context: SurveyContext
    /// Respondents of every lane under way: the cap is the shard's, not a lane's.
    let inFlight = InFlight()

    init(
        schedule: ArrivalSchedule, shard: Shard, cap: Int, data: RespondentData?, clock: EngineClock, recorder: MetricsRecorder,
        executors: [any TaskExecutor], durationCut: OnceFlag, dataCut: OnceFlag, context: SurveyContext
    ) {
        self.schedule = schedule
        self.shard = shard
        self.cap = cap
        self.data = data
        self.clock = clock
        self.recorder = recorder
        self.executors = executors
        self.durationCut = durationCut
        self.dataCut = dataCut
        self.context = context
    }

    /// Starts lane `lane`'s arrivals, each as a child of this lane's own group and on this
    /// lane's executor, until the schedule, the duration or the rows end or the run is
    /// interrupted.
    func run(lane: Int, of lanes: Int) async {
        var arrivals = ArrivalLane(schedule, shard: shard, lane: lane, of: lanes)
        await withDiscardingTaskGroup { group in
            while !context.interruption.isRaised, let arrival = arrivals.next {
                let due = context.runStart &+ arrival.due
                let now = clock.now()
                if let deadline = context.deadline, now >= deadline {
                    // Arrivals due before the end that a late loop has not started yet: the
                    // duration is a hard cap, for them too.
                    durationCut.raise()
                    return
                }
                if due > now {
                    await clock.sleep(min(due - now, 50_000_000))
                    continue
                }
                guard case .take(let row) = RunCoordinator.row(forRespondent: arrival.number, data, shard, context.seed, ranOut: dataCut)
                else {
                    return
                }
                arrivals.advance()
                guard inFlight.enter(below: cap) else {
                    // When it was due, not when a late loop came to it: the timeline's drops
                    // stay in the interval whose arrivals they are.
                    recorder.dropped(at: arrival.due, lane: lane)
                    continue
                }
                let number = arrival.number
                RunCoordinator.start(
                    { @concurrent in await self.respond(number, due: due, row: row, lane: lane) }, lane: lane, on: executors, in: &group)
            }
        }
    }

    /// The respondent of arrival `number`, due at `due`, from its start to its end; its lag
    /// behind `due` is counted as the tool's and added to its latencies.
    private func respond(_ number: Int, due: UInt64, row: Int?, lane: Int) async {
        let started = clock.now()
        let lag = started >= due ? started - due : 0
        recorder.lagged(.arrival, by: lag, at: context.sinceRunStart(at: started), lane: lane)
        var respondent = Respondent(index: number, seed: context.seed, startLag: .nanoseconds(Int64(clamping: lag)), lane: lane, row: row)
        await respondent.run(context)
        inFlight.leave()
    }
}

/// How many of a shard's respondents are under way, against its cap.
private final class InFlight: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more respondent when fewer than `cap` are under way; false when the cap is
    /// reached. Exact with lanes entering and respondents leaving at once: the count only ever
    /// moves from a value it was seen at, so no lane is refused for another's passing count.
    func enter(below cap: Int) -> Bool {
        var current = count.load(ordering: .relaxed)
        while current < cap {
            let (exchanged, found) = count.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = found
        }
        return false
    }

    func leave() {
        count.subtract(1, ordering: .relaxed)
    }
}

extension RunCoordinator {
    /// Which data row a respondent takes, if it may start.
    fileprivate enum RowTake {
        /// It starts, with this row of the data feed (nil: the run has none).
        case take(Int?)
        /// The rows ran out (`DataOrder.unique`): it does not start, nor does any after it.
        case ranOut
    }

    /// The data row of respondent `number` of `shard`, the same in both load models; raises
    /// `ranOut` when the rows ran out.
    fileprivate static func row(forRespondent number: Int, _ data: RespondentData?, _ shard: Shard, _ seed: UInt64, ranOut: OnceFlag)
        -> RowTake
    {
        guard let data else { return .take(nil) }
        guard let row = data.row(forRespondent: number, shard: shard, seed: seed) else {
            ranOut.raise()
            return .ranOut
        }
        return .take(row)
    }

    /// Starts `work` in `group`, on lane `lane`'s event loop when the run has loops (so that its
    /// requests and continuations stay on that loop's thread), else on the global pool. `work`
    /// is of the type the group takes: a closure of another type would be wrapped in one more
    /// allocation, held by every respondent's task for its whole life.
    fileprivate static func start(
        _ work: sending @escaping @isolated(any) () async -> Void, lane: Int, on executors: [any TaskExecutor],
        in group: inout DiscardingTaskGroup
    ) {
        if executors.isEmpty {
            group.addTask(operation: work)
        } else {
            group.addTask(executorPreference: executors[lane % executors.count], operation: work)
        }
    }
}
