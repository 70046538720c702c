import Synchronization

/// Whether a run has ended, for its signal handling: a signal then ends the linger of
/// `--metrics-linger`, not the run.
final class RunEnded: Sendable {
    private let ended = Mutex(false)

    func mark() { ended.withLock { $0 = true } }

    var isMarked: Bool { ended.withLock { $0 } }
}
