import Synchronization

/// What a run produced.
public struct RunResult: Sendable {
    public var metrics: RunMetrics
    /// Stopped early by `stop()` (a signal).
    public var interrupted: Bool
    /// From the first respondent's start to the last one's end.
    public var elapsed: Duration
}

/// Runs a survey load: owns the task group of respondents, starts them by the load model, and
/// stops starting them when asked.
///
/// Respondents run as children of one group. Given event loops as executors, each respondent
/// prefers one of them, so its requests and its continuations stay on that loop's thread.
public actor RunCoordinator {
    public let configuration: RunConfiguration
    public nonisolated let recorder: MetricsRecorder
    private nonisolated let stopFlag = StopFlag()
    private let transport: any Transport
    private let clock: EngineClock
    private let executors: [any TaskExecutor]

    public init(configuration: RunConfiguration, transport: any Transport, clock: EngineClock = .system, executors: [any TaskExecutor] = [])
    {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.executors = executors
        recorder = MetricsRecorder(shards: max(1, executors.count))
    }

    /// Stops starting respondents; the ones running finish their attempt in flight and leave.
    public nonisolated func stop() {
        stopFlag.raise()
    }

    public nonisolated var isStopping: Bool { stopFlag.isRaised }

    public func run() async -> RunResult {
        let configuration = self.configuration
        let runStart = clock.now()
        let api = configuration.api
        let context = SurveyContext(
            questionsRequest: HTTPRequest.Template(
                method: api.questions.method, path: configuration.target.basePath + api.questions.path, target: configuration.target,
                headers: api.headers),
            submitRequest: HTTPRequest.Template(
                method: api.submit.method, path: configuration.target.basePath + api.submit.path, target: configuration.target,
                headers: api.headers + [HTTPHeader(name: "Content-Type", value: "application/json")]),
            answers: configuration.answers, order: configuration.order, think: configuration.think,
            retryQuestions: configuration.retryQuestions, retrySubmit: configuration.retrySubmit, budget: RetryBudget(configuration.budget),
            transport: transport, clock: clock, recorder: recorder, stop: stopFlag, runStart: runStart, seed: configuration.seed,
            questionsCache: QuestionsCache(shards: max(1, executors.count)))
        switch configuration.load {
        case .closed(let respondents): await runClosed(respondents: respondents, context: context)
        case .open(let schedule): await runOpen(schedule, context: context)
        }
        let elapsed = clock.now() &- runStart
        return RunResult(metrics: recorder.snapshot(), interrupted: stopFlag.isRaised, elapsed: .nanoseconds(Int64(elapsed)))
    }

    private func runClosed(respondents: Int, context: SurveyContext) async {
        let shard = configuration.shard
        let workers = min(shard.share(of: configuration.concurrency), max(1, shard.count(of: respondents)))
        let next = Counter()
        let deadline = configuration.duration.map { context.runStart &+ $0.clampedNanoseconds }
        let seed = configuration.seed
        let clock = self.clock
        await withDiscardingTaskGroup { group in
            for worker in 0..<workers {
                let work: @concurrent @Sendable () async -> Void = {
                    while !context.stop.isRaised {
                        if let deadline, clock.now() >= deadline { return }
                        let number = next.take() * shard.count + (shard.index - 1)
                        guard number < respondents else { return }
                        var respondent = Respondent(index: number, seed: seed, shard: worker)
                        await respondent.run(context)
                    }
                }
                if executors.isEmpty {
                    group.addTask(operation: work)
                } else {
                    group.addTask(executorPreference: executors[worker % executors.count], operation: work)
                }
            }
        }
    }

    private func runOpen(_ schedule: ArrivalSchedule, context: SurveyContext) async {
        let shard = configuration.shard
        let cap = shard.share(of: configuration.concurrency)
        let inFlight = Atomic<Int>(0)
        let seed = configuration.seed
        let clock = self.clock
        let recorder = self.recorder
        let executors = self.executors
        await withDiscardingTaskGroup { group in
            var number = shard.index - 1
            var launched = 0
            while !context.stop.isRaised, let time = schedule.time(ofArrival: number) {
                let due = context.runStart &+ UInt64(time * 1e9)
                let now = clock.now()
                if due > now {
                    await clock.sleep(min(due - now, 50_000_000))
                    continue
                }
                let slot = launched % max(1, executors.count)
                if inFlight.load(ordering: .relaxed) >= cap {
                    recorder.dropped(shard: slot)
                } else {
                    inFlight.add(1, ordering: .relaxed)
                    let arrival = number
                    let work: @concurrent @Sendable () async -> Void = {
                        let lag = clock.now() &- due
                        var respondent = Respondent(index: arrival, seed: seed, startLag: lag > (1 << 62) ? 0 : lag, shard: slot)
                        await respondent.run(context)
                        inFlight.subtract(1, ordering: .relaxed)
                    }
                    if executors.isEmpty {
                        group.addTask(operation: work)
                    } else {
                        group.addTask(executorPreference: executors[slot], operation: work)
                    }
                    launched += 1
                }
                number += shard.count
            }
        }
    }
}

/// A shared counter handing out 0, 1, 2, …
private final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}
