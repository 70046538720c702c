import SurveyWire
import Synchronization

/// The early end of a run (`RunCoordinator.endEarly()`), shared by its respondents: once set,
/// no attempt starts, and the requests in flight carry its `cutoff`, lowered to the end plus the
/// grace.
final class EarlyEnd: Sendable {
    private let endedAt = Atomic<UInt64>(.max)
    private let grace: UInt64
    /// What every request of the run carries: the end of the run's duration plus the grace
    /// (`SurveyContext`), lowered to the early end plus the grace when the run ends early.
    let cutoff = RunCutoff()

    /// An end not yet set, giving attempts in flight `grace` when it is.
    init(grace: Duration) {
        self.grace = grace.clampedNanoseconds
    }

    /// Ends the run at `now` (a reading of the run's clock); a second call changes nothing.
    func end(at now: UInt64) {
        guard endedAt.compareExchange(expected: .max, desired: now, ordering: .relaxed).exchanged else { return }
        cutoff.lower(to: now &+ grace)
    }

    /// Gives attempts in flight at most the grace from `now`, without ending the run: a signal's
    /// stop. Neither this nor `end(at:)` moves the cutoff later.
    func cutAttemptsInFlight(from now: UInt64) {
        cutoff.lower(to: now &+ grace)
    }

    /// When the run was ended; nil while it runs on.
    var deadline: UInt64? {
        let value = endedAt.load(ordering: .relaxed)
        return value == .max ? nil : value
    }
}
