/// How one respondent's survey ended.
struct RespondentResult: Sendable, Hashable {
    /// Whether the respondent got to the end of the survey.
    enum Ending: Sendable, Hashable {
        /// Every question was submitted successfully.
        case completed
        /// Every question was tried; some were not submitted: still failing after their
        /// retries (`unanswered`), or with no answer in the plan (`skipped`).
        case finishedWithUnanswered
        /// Stopped before the end.
        case abandoned(AbandonReason)
        /// Still under way when the run's duration expired: stopped by the run, not by anything
        /// that went wrong for it.
        case cutShort
    }

    /// How the survey ended.
    var ending: Ending
    /// Questions submitted successfully: the app's counter.
    var submitted: Int
    /// Questions whose submit still failed after its retries.
    var unanswered: Int
    /// Questions the plan has no answer for: never sent, and not `unanswered`, which says the
    /// server refused.
    var skipped: Int

    /// A result.
    init(ending: Ending, submitted: Int, unanswered: Int, skipped: Int = 0) {
        self.ending = ending
        self.submitted = submitted
        self.unanswered = unanswered
        self.skipped = skipped
    }

    /// Whether the respondent was abandoned.
    var isAbandoned: Bool {
        if case .abandoned = ending { true } else { false }
    }
}
