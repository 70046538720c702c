/// `survey-bot report FILE.json`: re-renders a saved report.
enum ReportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Render a saved JSON report as text, Markdown or JUnit XML.",
        discussion: "The output is what 'run' wrote for the same report: formats are rendered from the JSON alone.",
        arguments: [ArgumentSpec("report", help: "A JSON report written by 'run' or 'merge'.")],
        options: [
            OptionSpec("format", value: "format", help: "text, markdown or junit.", default: "text")
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        func usage(_ message: String) -> ExitCode {
            SurveyBotCommand.usageError(message, usage: spec.usage, helpHint: "survey-bot report --help", console: console)
        }
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            return usage(arguments.positionals.isEmpty ? "missing the report file" : "report takes one report file")
        }
        let format = arguments.value("format") ?? "text"
        let formats = ["text", "markdown", "junit"]
        guard formats.contains(format) else {
            let hint = Suggestions.closest(to: format, in: formats).map { " (did you mean '\($0)'?)" } ?? ""
            return usage("--format: unknown format '\(format)'\(hint); expected text, markdown or junit")
        }
        let report: RunReport
        do throws(RunReport.ReadError) {
            report = try RunReport.read(path: path)
        } catch {
            console.printError("Error: \(error.description)")
            return .validationFailure
        }
        switch format {
        case "markdown": console.out(MarkdownReport.render(report))
        case "junit": console.out(JUnitReport.render(report))
        default: console.print(TextReport.render(report))
        }
        return .success
    }
}
