import Synchronization

/// The live state of a run's retry budget (`RetryBudgetPolicy`): calls and retries so far,
/// shared by every respondent.
final class RetryBudget: Sendable {
    let policy: RetryBudgetPolicy?
    private let calls = Atomic<Int>(0)
    private let retries = Atomic<Int>(0)
    private let denied = Atomic<Int>(0)

    init(_ policy: RetryBudgetPolicy?) {
        self.policy = policy
    }

    /// A logical call began.
    func callStarted() {
        guard policy != nil else { return }  // no budget: no shared counter to contend on
        calls.add(1, ordering: .relaxed)
    }

    /// Takes one retry from the budget; false when it is spent (the retry must not be sent).
    func withdraw() -> Bool {
        guard let policy else { return true }
        let allowed = policy.ratio * Double(calls.load(ordering: .relaxed)) + Double(policy.minimum)
        let taken = retries.add(1, ordering: .relaxed).newValue
        if Double(taken) <= allowed { return true }
        retries.subtract(1, ordering: .relaxed)
        denied.add(1, ordering: .relaxed)
        return false
    }

    /// Retries refused so far.
    var deniedCount: Int { denied.load(ordering: .relaxed) }
}
