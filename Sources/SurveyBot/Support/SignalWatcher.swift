@preconcurrency import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP as an async sequence: the default actions are turned off and a
/// dispatch source reports each signal, so that the program decides what a Ctrl-C, a `kill` or a
/// closed terminal means (stop starting work, write the partial report) instead of dying
/// mid-write.
///
/// The program takes in the first `exitAfter` signals through `signals`; the one after them
/// means "now": it is handled on the watcher's own dispatch queue, whatever the rest of the
/// program is doing (a report being written included) — `farewell` says so, the temporary files
/// being written are removed (`TemporaryFiles.exitNow`) and the process exits with 128 + the
/// signal's number, as a shell reports a process the signal killed.
final class SignalWatcher: Sendable {
    /// The signals watched: Ctrl-C, `kill`'s default and a closed terminal.
    static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The signals taken in, in the order they arrive.
    let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// - Parameters:
    ///   - exitAfter: how many signals the program takes in before the next one exits at once.
    ///   - farewell: called on the signal queue just before such an exit, with the signal.
    init(exitAfter allowed: Int = 1, farewell: @escaping @Sendable (Int32) -> Void = { _ in }) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = stream
        let queue = DispatchQueue(label: "survey-bot.signals")
        let requests = Mutex(SignalRequests(allowed: allowed))
        var sources: [any DispatchSourceSignal] = []
        for number in Self.watched {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // The handler holds its source until `restoreDefaults` cancels it, which drops the handler.
            source.setEventHandler {
                // A source coalesces signals that arrive before its handler runs (`data` counts
                // them): copies that arrived together are one request.
                let now = DispatchTime.now().uptimeNanoseconds
                switch requests.withLock({ $0.receive(number, at: now) }) {
                case .repeated: break
                case .takeIn: continuation.yield(number)
                case .exitNow:
                    farewell(number)
                    TemporaryFiles.exitNow(ExitCode.signalled(number).rawValue)
                }
            }
            source.resume()
            sources.append(source)
        }
        // Wait until the sources are live, so that a signal sent right after start-up is seen.
        queue.sync {}
        self.sources = sources
    }

    /// Restores the default actions: a later signal ends the process at once.
    func restoreDefaults() {
        for source in sources { source.cancel() }
        for number in Self.watched { signal(number, SIG_DFL) }
    }

    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}

/// What a signal asks of the program: the first ones are taken in, the one after them means
/// "exit now" — but a copy of the same signal arriving within `window` of one taken in is the
/// same request, not a second: GNU `timeout`, CI runners, systemd and Kubernetes signal the
/// process and then its process group, and the two copies arrive microseconds apart.
struct SignalRequests: Sendable {
    /// How many requests are taken in before the next one exits at once.
    let allowed: Int
    /// How close a copy of the same signal must follow to be the same request: a person's
    /// second Ctrl-C comes later than this.
    var window: UInt64 = 250_000_000
    private var taken = 0
    private var last: (number: Int32, at: UInt64)?

    init(allowed: Int) {
        self.allowed = allowed
    }

    /// What the program does with one request.
    enum Decision: Equatable {
        /// Yield it to the program.
        case takeIn
        /// Exit at once.
        case exitNow
        /// A copy of the request just taken in: nothing more.
        case repeated
    }

    /// Signal `number` arriving at `now` (a monotonic reading, in nanoseconds).
    mutating func receive(_ number: Int32, at now: UInt64) -> Decision {
        if let last, last.number == number, now >= last.at, now - last.at < window { return .repeated }
        last = (number, now)
        taken += 1
        return taken > allowed ? .exitNow : .takeIn
    }
}
