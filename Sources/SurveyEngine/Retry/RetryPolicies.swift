import SurveyJourney

/// The retry policy of each step's calls, and the run-wide budget they share.
public struct RetryPolicies: Sendable, Hashable {
    /// Each step's policy; a step without one never retries.
    public var perStep = StepTable([], initial: RetryPolicy.never)
    /// A cap on retries across the run; nil for none.
    public var budget: RetryBudgetPolicy?

    /// Policies that never retry, but for the steps given one.
    public init(_ policies: KeyValuePairs<Step, RetryPolicy> = [:], budget: RetryBudgetPolicy? = nil) {
        for (step, policy) in policies { perStep[step] = policy }
        self.budget = budget
    }

    /// The policy of a step's calls.
    public subscript(step: Step) -> RetryPolicy {
        get { perStep[step] }
        set { perStep[step] = newValue }
    }
}
