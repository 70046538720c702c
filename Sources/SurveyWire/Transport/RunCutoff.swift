import Synchronization

/// When every attempt of a run ends at the latest, whatever its own timeout: the end of the run's
/// duration plus its grace, known from the start, or — earlier — the moment the run is ended
/// early (a signal, an abort, a threshold) plus the grace. Lowered from any thread; every request
/// of the run carries it (`HTTPRequest.Scope`), and an attempt already under way reads it again
/// while it waits. Until lowered it cuts nothing.
public final class RunCutoff: Sendable {
    private let time = Atomic<UInt64>(.max)

    /// A cutoff not yet set.
    package init() {}

    /// Moves the cutoff to `time`, a reading of the clock the requests are timed by, when that is
    /// earlier: a later time changes nothing, so neither a second early end nor the duration's end
    /// after an early one gives attempts more time.
    package func lower(to time: UInt64) {
        var current = self.time.load(ordering: .relaxed)
        while time < current {
            let (exchanged, original) = self.time.compareExchange(expected: current, desired: time, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// The cutoff; nil while it is not set.
    var value: UInt64? {
        let value = time.load(ordering: .relaxed)
        return value == .max ? nil : value
    }
}
