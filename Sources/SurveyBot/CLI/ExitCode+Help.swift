/// The exit codes as `--help` lays them out; the codes themselves are `ExitCode`.
extension ExitCode {
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
