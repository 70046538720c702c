/// The retry policy of each endpoint's calls, and the run-wide budget shared by both.
public struct RetryPolicies: Sendable, Hashable {
    /// Fetching the questions: the app's retry mechanism.
    public var questions: RetryPolicy
    /// Submitting an answer: the "Failure.... — Retry" banner.
    public var submit: RetryPolicy
    /// The session step (`SurveyAPI.login`).
    public var login: RetryPolicy = .never
    /// A cap on retries across the run; nil for none.
    public var budget: RetryBudgetPolicy?

    /// Policies that never retry, unless given.
    public init(questions: RetryPolicy = .never, submit: RetryPolicy = .never, budget: RetryBudgetPolicy? = nil) {
        self.questions = questions
        self.submit = submit
        self.budget = budget
    }

    /// The policy of an endpoint's calls.
    public subscript(endpoint: Endpoint) -> RetryPolicy {
        get {
            switch endpoint {
            case .login: login
            case .questions: questions
            case .submit: submit
            }
        }
        set {
            switch endpoint {
            case .login: login = newValue
            case .questions: questions = newValue
            case .submit: submit = newValue
            }
        }
    }
}
