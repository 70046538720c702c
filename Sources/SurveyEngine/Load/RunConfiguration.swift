/// Everything the engine needs to run a survey load: the load model, the respondents'
/// behaviour and policies, the target. Made from a plan by the command line; knows no files.
public struct RunConfiguration: Sendable {
    public enum Load: Sendable, Hashable {
        /// `respondents` in total, at most `concurrency` at once.
        case closed(respondents: Int)
        /// Respondents arrive on a schedule; arrivals beyond `concurrency` in flight are dropped.
        case open(ArrivalSchedule)
    }

    public var load: Load
    public var concurrency: Int
    /// Closed model: no respondent starts after this much time.
    public var duration: Duration?
    public var think: DurationRange
    public var order: QuestionOrder
    public var seed: UInt64
    public var target: HTTPTarget
    public var api: SurveyAPI
    public var answers: AnswerBook
    public var retryQuestions: RetryPolicy
    public var retrySubmit: RetryPolicy
    public var budget: RetryBudgetPolicy?
    public var shard: Shard

    public init(
        load: Load, concurrency: Int, duration: Duration? = nil, think: DurationRange = .zero, order: QuestionOrder = .sequential,
        seed: UInt64 = 0, target: HTTPTarget, api: SurveyAPI = SurveyAPI(), answers: AnswerBook, retryQuestions: RetryPolicy = .never,
        retrySubmit: RetryPolicy = .never, budget: RetryBudgetPolicy? = nil, shard: Shard = .whole
    ) {
        self.load = load
        self.concurrency = concurrency
        self.duration = duration
        self.think = think
        self.order = order
        self.seed = seed
        self.target = target
        self.api = api
        self.answers = answers
        self.retryQuestions = retryQuestions
        self.retrySubmit = retrySubmit
        self.budget = budget
        self.shard = shard
    }
}

/// The i-th of n equal slices of a run's load (`--shard i/n`): respondents (or arrivals) whose
/// number is i−1 modulo n. A respondent's random stream depends on its number only, so the n
/// shards together do exactly what one unsharded run does.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index), "shard \(index)/\(count) out of range")
        self.index = index
        self.count = count
    }

    public static let whole = Shard(index: 1, count: 1)

    public var description: String { "\(index)/\(count)" }

    public func contains(_ number: Int) -> Bool { number % count == index - 1 }

    /// This shard's part of a concurrency, so that the parts add up to the whole (each ≥ 1).
    public func share(of total: Int) -> Int {
        max(1, total / count + (index - 1 < total % count ? 1 : 0))
    }

    /// How many of `total` numbered items fall in this shard.
    public func count(of total: Int) -> Int {
        total <= index - 1 ? 0 : (total - index) / count + 1
    }
}
