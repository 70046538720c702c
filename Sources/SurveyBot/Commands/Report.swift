/// `survey-bot report FILE.json`: re-renders a saved report.
enum ReportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Render a saved JSON report as text, Markdown or JUnit XML.",
        arguments: [ArgumentSpec("report", help: "A JSON report written by 'run' or 'merge'.")],
        options: [
            OptionSpec("format", value: "format", help: "text, markdown or junit.", default: "text")
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        context.console.printError("Error: 'survey-bot report' is not built yet: reports land with issue #5.")
        return .validationFailure
    }
}
