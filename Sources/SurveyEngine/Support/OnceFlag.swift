import Synchronization

/// A flag raised once, read from any thread: a run's interruption (`RunCoordinator.interrupt()`),
/// or the note that its duration or data rows ran out with respondents still to start.
final class OnceFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    var isRaised: Bool { raised.load(ordering: .relaxed) }

    func raise() {
        raised.store(true, ordering: .relaxed)
    }
}
