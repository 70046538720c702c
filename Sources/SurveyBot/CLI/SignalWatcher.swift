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
        let received = Atomic<Int>(0)
        var sources: [any DispatchSourceSignal] = []
        for number in Self.watched {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // The handler holds its source until `restoreDefaults` cancels it, which drops the handler.
            source.setEventHandler {
                // A source coalesces signals that arrive before its handler runs: `data` counts them.
                for _ in 0..<max(1, Int(source.data)) {
                    let count = received.add(1, ordering: .sequentiallyConsistent).newValue
                    guard count > allowed else {
                        continuation.yield(number)
                        continue
                    }
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
