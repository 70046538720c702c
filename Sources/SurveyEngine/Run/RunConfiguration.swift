import SurveyJourney
import SurveyWire

/// Everything the engine needs to run a survey load except where to send it: the load model,
/// what respondents do and how they retry, and the HTTP client's limits. A plan file decodes
/// straight into it; the engine reads no files.
public struct RunConfiguration: Sendable, Hashable {
    /// How respondents arrive: all at once up to the concurrency, or on a schedule.
    public var load: LoadModel
    /// At most this many respondents at once, in all: each shard runs its share of them.
    public var concurrency: Int
    /// A hard cap on the run, in both load models: when it expires no attempt starts (no new
    /// respondent, retry or submit; a think time or backoff is cut), an attempt in flight gets
    /// at most `grace` more, and respondents still under way are cut short. In the open model it
    /// is also how long arrivals go on (see `LoadModel.schedule(duration:)`). Nil: every
    /// closed-model respondent runs, and open-model arrivals end with the ramp.
    public var duration: Duration?
    /// How long an attempt in flight when `duration` expires may go on — never longer than its
    /// own timeout — before it is cut and counted as a `timeout`. Nil: the attempt timeout
    /// (`client.timeout`). The run ends within `duration + grace`.
    public var grace: Duration?
    /// The pause before each submit, drawn from its distribution; a stop cuts it short within 50 ms.
    public var think: ThinkTime
    /// The least time between the starts of two submits of one respondent (k6's and Gatling's
    /// pacing): when a submit and the next think time took less, the respondent waits the rest
    /// before the next submit. Retries belong to their submit. Nil: no pacing.
    public var pace: Duration?
    /// Whether each respondent keeps a cookie jar of its own (RFC 6265): cookies a response
    /// sets go back on later requests that match them. Never shared between respondents.
    public var cookies: Bool
    /// Whether the metrics count the answers respondents give, by question and choice
    /// (`RunMetrics.answersGiven`, the report's `answers.given`).
    public var recordAnswers = false
    /// The order in which each respondent walks the questions.
    public var order: QuestionOrder
    /// Makes answer choice, order, think time and jitter repeatable. Nil lets `RunCoordinator`
    /// pick one, which it then reports.
    public var seed: UInt64?
    /// The survey API's calls and headers.
    public var api: SurveyAPI
    /// The journey a plan declares, step by step; nil for the default journey of `api`.
    public var declaredJourney: Journey?
    /// What respondents answer.
    public var answers: AnswerBook
    /// One row per respondent, for `${row.COLUMN}` and `answer.<id>` columns; nil for none.
    public var data: RespondentData?
    /// The column of `data` each respondent's own proxy comes from (a plan's `proxy:
    /// ${row.proxy}`), set on its `Device` in place of `client.proxy`: a proxy URL as
    /// `HTTPProxy.parse` reads it, or empty for none. Only a respondent that holds connections
    /// of its own has a device, so it goes with `client.sharing` `.perRespondent`; nil: every
    /// respondent goes through `client.proxy`. Its values are checked before the run starts
    /// (`RespondentData.problems(for:)`).
    public var proxyColumn: String?
    /// How each step's calls are retried, and the run-wide retry budget.
    public var retry: RetryPolicies
    /// Timeouts and limits of every HTTP attempt.
    public var client: HTTPClientConfiguration
    /// The slice of the load this process runs (`--shard i/n`); `.whole` by default.
    public var shard: Shard
    /// How many event loops (threads) run the respondents and their connections; nil for one
    /// per core. Like wrk's `-t`: fewer loops than cores leave cores to the server under test.
    public var threads: Int?
    /// Values that must never be shown of what a server sends back: the plan's values from the
    /// environment and its header values. A server's reason for a failure (a 4xx's body, a
    /// refused check) is recorded with each of them written `***`, as are the proxy's
    /// credentials and each respondent's session and data row (`SecretValues`).
    public var secrets: [String] = []
    /// The length of an interval of the run's timeline (`RunMetrics.timeline`), at least 1 ms;
    /// nil for no timeline. A run that outgrows `Timeline.maxIntervals` doubles it.
    public var timelineInterval: Duration? = .seconds(1)

    /// A configuration; every part but the load has a default fit for a small test.
    public init(
        load: LoadModel, concurrency: Int = 1, duration: Duration? = nil, think: ThinkTime = .zero, order: QuestionOrder = .sequential,
        seed: UInt64? = nil, api: SurveyAPI = SurveyAPI(), answers: AnswerBook = AnswerBook(fallback: ["ok"]),
        retry: RetryPolicies = RetryPolicies(), client: HTTPClientConfiguration = HTTPClientConfiguration(), shard: Shard = .whole,
        threads: Int? = nil, grace: Duration? = nil, pace: Duration? = nil, cookies: Bool = true
    ) {
        self.pace = pace
        self.cookies = cookies
        self.threads = threads
        self.grace = grace
        self.load = load
        self.concurrency = concurrency
        self.duration = duration
        self.think = think
        self.order = order
        self.seed = seed
        self.api = api
        self.answers = answers
        self.retry = retry
        self.client = client
        self.shard = shard
    }

    /// How long attempts in flight may go on once no attempt may start: after the duration, the
    /// plan's `grace` (else the attempt timeout); after an early end without a duration
    /// (`RunCoordinator.endEarly()`), the attempt timeout.
    public var effectiveGrace: Duration {
        (duration == nil ? nil : grace) ?? client.timeout
    }

    /// The steps each respondent takes: the declared journey, else the default one of `api`.
    public var journey: Journey {
        declaredJourney ?? api.journey
    }
}
