#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a command ended, as the process exit status. Documented in `--help` and the README.
public struct ExitCode: Sendable, Hashable, CustomStringConvertible {
    /// The process exit status.
    public var rawValue: Int32

    init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The run completed and every threshold passed; a diff found no regression.
    static let success = ExitCode(0)
    /// A threshold failed, the run ran out of local resources (file descriptors, ports), or a
    /// diff found a regression.
    static let failure = ExitCode(1)
    /// Bad input: usage, a plan, an unreadable report. Nothing was sent to the target.
    static let validationFailure = ExitCode(2)
    /// Interrupted by SIGINT (Ctrl-C); a partial report was still written.
    static let interrupted = ExitCode(130)

    /// Ended by signal `number`: 128 + the number, as a shell reports a process the signal
    /// killed — 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
    static func signalled(_ number: Int32) -> ExitCode {
        ExitCode(128 + number)
    }

    /// The status in decimal, as a shell shows it: `130`.
    public var description: String { String(rawValue) }
}

/// Exits the process with `code`. Output is written unbuffered, so nothing is left to flush.
public func exitProcess(_ code: ExitCode) -> Never {
    exit(code.rawValue)
}
