import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes: results to `out`, progress and diagnostics to `err`.
struct Console: Sendable {
    var out: @Sendable (String) -> Void
    var err: @Sendable (String) -> Void
    /// Whether stderr is a terminal: the live progress line is shown only then.
    var errorIsTerminal: Bool
    /// Whether colour may be used (`NO_COLOR` unset and stderr a terminal).
    var colors: Bool

    init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, errorIsTerminal: Bool = false,
        colors: Bool = false
    ) {
        self.out = out
        self.err = err
        self.errorIsTerminal = errorIsTerminal
        self.colors = colors
    }

    /// The process's standard output and standard error. A stream its reader closed (`| head
    /// -1`) is written no more: the rest of its output is skipped, and the command goes on.
    static func standard(environment: [String: String]) -> Console {
        let terminal = isatty(STDERR_FILENO) == 1
        let out = StandardStream(STDOUT_FILENO)
        let err = StandardStream(STDERR_FILENO)
        return Console(
            out: { text in out.write(text) },
            err: { text in err.write(text) },
            errorIsTerminal: terminal,
            colors: terminal && environment["NO_COLOR", default: ""].isEmpty && environment["TERM"] != "dumb")
    }

    /// Writes a line to stdout.
    func print(_ line: String) { out(line + "\n") }
    /// Writes a line to stderr.
    func printError(_ line: String) { err(line + "\n") }
}

/// Standard output or error: written unbuffered, and not written again once its reader has
/// gone (EPIPE; SIGPIPE is ignored, `SurveyBotCommand.main`).
private final class StandardStream: Sendable {
    let fd: Int32
    private let closed = Atomic<Bool>(false)

    init(_ fd: Int32) {
        self.fd = fd
    }

    func write(_ text: String) {
        guard !closed.load(ordering: .relaxed) else { return }
        if writeAll(fd, text) == EPIPE { closed.store(true, ordering: .relaxed) }
    }
}

/// Writes every byte of `text` to a file descriptor, unbuffered, retrying short writes. Returns
/// 0, or the error number that stopped it.
@discardableResult
func writeAll(_ fd: Int32, _ text: String) -> Int32 {
    var text = text
    return text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return n < 0 ? errno : EIO
            }
        }
        return 0
    }
}
