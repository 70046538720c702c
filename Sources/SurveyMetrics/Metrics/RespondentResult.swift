/// How one respondent's survey ended.
package struct RespondentResult: Sendable, Hashable {
    /// Whether the respondent got to the end of the survey.
    package enum Ending: Sendable, Hashable {
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
    package var ending: Ending
    /// Questions submitted successfully: the app's counter.
    package var submitted: Int
    /// Questions whose submit still failed after its retries.
    package var unanswered: Int
    /// Questions the plan has no answer for: never sent, and not `unanswered`, which says the
    /// server refused.
    package var skipped: Int
    /// Questions the respondent chose not to answer: optional ones it skipped
    /// (`AnswerBook.skipOptional`), or those the plan answers `skip()`. Not a shortfall: a
    /// respondent that declines some still completes.
    package var declined = 0

    /// A result.
    package init(ending: Ending, submitted: Int, unanswered: Int, skipped: Int = 0) {
        self.ending = ending
        self.submitted = submitted
        self.unanswered = unanswered
        self.skipped = skipped
    }

    /// Whether the respondent was abandoned.
    package var isAbandoned: Bool {
        if case .abandoned = ending { true } else { false }
    }
}
