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
    /// A threshold failed, or a diff found a regression.
    static let failure = ExitCode(1)
    /// Bad input: usage, a plan, an unreadable report. Nothing was sent to the target.
    static let validationFailure = ExitCode(2)
    /// Interrupted by SIGINT or SIGTERM; a partial report was still written.
    static let interrupted = ExitCode(130)

    /// The status in decimal, as a shell shows it: `130`.
    public var description: String { String(rawValue) }

    /// The exit-code table printed by `--help` and copied into the README.
    static let table = """
            0  the run passed every threshold (diff: no regression)
            1  a threshold failed (diff: a regression was found)
            2  bad input: usage, plan or report file; nothing was sent
          130  interrupted (SIGINT/SIGTERM); a partial report was written
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
