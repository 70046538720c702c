/// What ended a run.
public enum StopCause: String, Sendable, Hashable, CaseIterable {
    /// Every respondent the load model called for ran to its end.
    case completed
    /// The duration expired with respondents under way or still to start: those under way
    /// were cut short.
    case duration
    /// `RunCoordinator.interrupt()` was called: a signal (Ctrl-C, SIGTERM).
    case signal
    /// `RunCoordinator.endEarly()` ended the run before its end, as its duration would have
    /// (survey-bot: a threshold with `abort`).
    case endedEarly = "ended_early"
    /// The data feed's rows ran out (`DataOrder.unique`) before every respondent the load
    /// model called for had started: those without a row never started.
    case data
}
