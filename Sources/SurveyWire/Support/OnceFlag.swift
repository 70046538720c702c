import Synchronization

/// A flag raised once, read from any thread: a run's interruption (`RunCoordinator.interrupt()`),
/// or the note that its duration or data rows ran out with respondents still to start.
package final class OnceFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// A flag not raised yet.
    package init() {}

    package var isRaised: Bool { raised.load(ordering: .relaxed) }

    package func raise() {
        raised.store(true, ordering: .relaxed)
    }
}
