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

    /// The exit-code table printed by `--help` and copied into the README.
    static let table = """
            0  the run passed every threshold (diff: no regression)
            1  a threshold failed, or survey-bot ran out of file descriptors or ports
               (diff: a regression, or a partial merge compared; merge: shards
               missing with --allow-partial)
            2  bad input: usage, plan or report file; nothing was sent
          130  interrupted by SIGINT (Ctrl-C); a partial report was written
          143  interrupted by SIGTERM; a partial report was written
          129  interrupted by SIGHUP (the terminal closed); a partial report was written
               (a second signal exits at once with 128 + its number, without a report;
               merge: 130 when a shard's run was interrupted)
        """

    /// A command's own exit-code table, laid out as `table` is, each meaning wrapped at 80
    /// columns under its first word.
    static func table(for rows: [(code: ExitCode, meaning: String)]) -> String {
        let indent = String(repeating: " ", count: 7)
        return rows.map { row in
            let code = String(repeating: " ", count: max(0, 5 - row.code.description.count)) + "\(row.code)  "
            return code + CommandSpec.wrap(row.meaning, width: 80 - indent.count).replacingOccurrences(of: "\n", with: "\n" + indent)
        }.joined(separator: "\n")
    }
}

/// Exits the process with `code`. Output is written unbuffered, so nothing is left to flush.
public func exitProcess(_ code: ExitCode) -> Never {
    exit(code.rawValue)
}
