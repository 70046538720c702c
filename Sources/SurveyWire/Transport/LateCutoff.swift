import Synchronization

/// A cutoff that may be set after a request has started: a request that carries one ends as a
/// `timeout` at it, even if its own timeout has not run out. Set once, from any thread (the end
/// of a run ended early, plus its grace); until then it cuts nothing.
public final class LateCutoff: Sendable {
    private let time = Atomic<UInt64>(.max)

    /// A cutoff not yet set.
    package init() {}

    /// Sets the cutoff to `time`, a reading of the clock the requests are timed by; a second
    /// call changes nothing.
    package func set(_ time: UInt64) {
        _ = self.time.compareExchange(expected: .max, desired: time, ordering: .relaxed)
    }

    /// The cutoff; nil while it is not set.
    var value: UInt64? {
        let value = time.load(ordering: .relaxed)
        return value == .max ? nil : value
    }
}
