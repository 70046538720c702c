import Foundation

/// `survey-bot merge A.json B.json … --out ALL.json`: combines the reports of shards.
enum MergeCommand: Subcommand {
    static let spec = CommandSpec(
        name: "merge",
        abstract: "Merge the reports of one plan's shards into the report of the whole run.",
        discussion: """
            Counts add up, latency histograms merge bucket by bucket, percentiles are read again from \
            the merged histograms, timelines add up interval by interval on the wall-clock grid, and \
            the plan's thresholds are evaluated again on the whole: the \
            result is the report one machine would have written. The reports must be the shards of \
            one run (the same run_id: give every shard the same --run-id) of one plan (the same \
            plan_digest), each shard once and none missing; every way they are not is named, with \
            its files, and nothing is written. With --allow-partial, missing shards are allowed: \
            the result is marked partial, lists them, and never passes.
            """,
        arguments: [ArgumentSpec("report", help: "JSON reports of the shards of one run.", repeating: true)],
        options: [
            OptionSpec(
                "out", short: "o", value: "file", help: "Where to write the merged JSON report (written atomically).", required: true),
            OptionSpec(
                "allow-partial",
                help: "Merge the shards given even if some are missing; the result says which, on every format's first line."),
        ],
        exitCodes: [
            (.success, "every shard merged, and every threshold held on the whole"),
            (.failure, "a threshold failed on the merged figures, or --allow-partial merged with shards missing (never 0)"),
            (
                .validationFailure,
                "usage, an unreadable report, reports of different runs or plans, a shard given twice, or shards missing "
                    + "without --allow-partial: each problem is named, nothing is written"
            ),
            (.interrupted, "a shard's run was interrupted: the merged figures are partial"),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard let out = arguments.value("out") else {
            return spec.usageError("missing required option '--out <file>'", console: console)
        }
        guard !arguments.positionals.isEmpty else {
            return spec.usageError("give the reports to merge", console: console)
        }
        var parts: [(path: String, report: RunReport)] = []
        for path in arguments.positionals {
            do throws(RunReport.ReadError) {
                parts.append((path, try RunReport.read(path: path)))
            } catch {
                console.printError("Error: \(TerminalText.escaped(error.description))")
                return .validationFailure
            }
        }
        let merged: RunReport
        do throws(RunReport.MergeError) {
            merged = try RunReport.merged(parts, allowPartial: arguments.flag("allow-partial"))
        } catch {
            for problem in error.problems { console.printError("Error: \(TerminalText.escaped(problem))") }
            if error.problems.count > 1 { console.printError("merge: \(error.problems.count) problems; nothing was merged") }
            return .validationFailure
        }
        let text: String
        do throws(JSONEncodingError) {
            text = try merged.jsonText()
        } catch {
            console.printError("Error: cannot write \(out): \(error.description)")
            return .validationFailure
        }
        let url = URL(fileURLWithPath: out)
        let writer = ReportWriter(directory: url.deletingLastPathComponent().path)
        // A signal while the file is written removes its temporary file and exits at once.
        let signals = SignalWatcher(exitAfter: 0) { signal in
            console.printError("\(SignalWatcher.name(signal)): stopped before \(out) was written")
        }
        defer { signals.restoreDefaults() }
        do throws(ReportWriter.WriteError) {
            try writer.prepare()
            try writer.write(text, to: url.lastPathComponent)
        } catch {
            console.printError("Error: \(TerminalText.escaped(error.description))")
            return .validationFailure
        }
        console.out(TextReport.render(merged))
        console.print("report: \(out)")
        if merged.interrupted { return .interrupted }
        return merged.passed ? .success : .failure
    }
}
