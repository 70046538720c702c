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
    package var submitted: Int {
        get { Int(counts.submitted) }
        set { counts.submitted = Int32(clamping: newValue) }
    }
    /// Questions whose submit still failed after its retries.
    package var unanswered: Int {
        get { Int(counts.unanswered) }
        set { counts.unanswered = Int32(clamping: newValue) }
    }
    /// Questions the plan has no answer for: never sent, and not `unanswered`, which says the
    /// server refused.
    package var skipped: Int {
        get { Int(counts.skipped) }
        set { counts.skipped = Int32(clamping: newValue) }
    }
    /// Questions the respondent chose not to answer: optional ones it skipped
    /// (`AnswerBook.skipOptional`), or those the plan answers `skip()`. Not a shortfall: a
    /// respondent that declines some still completes.
    package var declined: Int {
        get { Int(counts.declined) }
        set { counts.declined = Int32(clamping: newValue) }
    }

    /// The four counts in 32 bits each: a result lives in the frames every thinking respondent
    /// keeps (`Respondent.takeSurvey`'s and its task's), where 16 bytes more cost a slab of about
    /// 1 KB per respondent (docs/performance.md, "Memory"). One survey's questions fit.
    private var counts: Counts

    /// The counts a result keeps, each in 32 bits.
    private struct Counts: Sendable, Hashable {
        var submitted: Int32
        var unanswered: Int32
        var skipped: Int32
        var declined: Int32 = 0
    }

    /// A result.
    package init(ending: Ending, submitted: Int, unanswered: Int, skipped: Int = 0) {
        self.ending = ending
        counts = Counts(submitted: Int32(clamping: submitted), unanswered: Int32(clamping: unanswered), skipped: Int32(clamping: skipped))
    }

    /// Whether the respondent was abandoned.
    package var isAbandoned: Bool {
        if case .abandoned = ending { true } else { false }
    }
}
