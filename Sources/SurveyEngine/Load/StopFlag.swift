import Synchronization

/// Set once when the run must stop starting work: respondents finish the attempt in flight
/// and leave at their next step.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    var isRaised: Bool { raised.load(ordering: .relaxed) }

    func raise() {
        raised.store(true, ordering: .relaxed)
    }
}
