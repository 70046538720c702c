import Foundation

/// `survey-bot merge A.json B.json … --out ALL.json`: combines the reports of shards.
enum MergeCommand: Subcommand {
    static let spec = CommandSpec(
        name: "merge",
        abstract: "Merge the reports of one plan's shards into the report of the whole run.",
        discussion: """
            Counts add up, latency histograms merge bucket by bucket, percentiles are read again from \
            the merged histograms and the plan's thresholds are evaluated again on the whole: the \
            result is the report one machine would have written. Reports of different plans are \
            refused. Exits 1 when a threshold fails on the merged figures.
            """,
        arguments: [ArgumentSpec("report", help: "JSON reports of the same plan.", repeating: true)],
        options: [
            OptionSpec("out", short: "o", value: "file", help: "Where to write the merged JSON report (written atomically).")
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard let out = arguments.value("out") else {
            return spec.usageError("missing --out FILE", console: console)
        }
        guard !arguments.positionals.isEmpty else {
            return spec.usageError("give the reports to merge", console: console)
        }
        var parts: [(path: String, report: RunReport)] = []
        for path in arguments.positionals {
            do throws(RunReport.ReadError) {
                parts.append((path, try RunReport.read(path: path)))
            } catch {
                console.printError("Error: \(error.description)")
                return .validationFailure
            }
        }
        let merged: RunReport
        do throws(RunReport.MergeError) {
            merged = try RunReport.merged(parts)
        } catch {
            console.printError("Error: \(error.description)")
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
            console.printError("Error: \(error.description)")
            return .validationFailure
        }
        console.out(TextReport.render(merged))
        console.print("report: \(out)")
        if merged.interrupted { return .interrupted }
        return merged.passed ? .success : .failure
    }
}
