import Synchronization

@testable import SurveyBot

/// A console that keeps what is written, for tests.
final class CapturingConsole: Sendable {
    private let state = Mutex<(out: String, err: String)>(("", ""))

    init() {}

    var console: Console {
        Console(
            out: { text in self.state.withLock { $0.out += text } },
            err: { text in self.state.withLock { $0.err += text } })
    }

    var standardOutput: String { state.withLock { $0.out } }
    var standardError: String { state.withLock { $0.err } }
}
