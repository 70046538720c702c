@preconcurrency import Dispatch
import Foundation

/// SIGINT and SIGTERM as an async sequence: the default actions are turned off and a dispatch
/// source reports each signal, so that the program decides what a Ctrl-C means (stop starting
/// work, write the partial report) instead of dying mid-write.
final class SignalWatcher: Sendable {
    /// The signals, in the order they arrive.
    let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = stream
        let queue = DispatchQueue(label: "survey-bot.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
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
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    static func name(_ number: Int32) -> String {
        number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
    }
}
