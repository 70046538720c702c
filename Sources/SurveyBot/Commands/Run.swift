/// `survey-bot run PLAN`: runs a plan against its target and writes the report.
enum RunCommand: Subcommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Run a plan against its target and write the report.",
        discussion: """
            Virtual respondents fetch the questions, answer and submit them with the plan's retry \
            policies. 'target: builtin' starts the reference server in-process on a loopback port. \
            The report is written to the plan's report.dir (default reports/) as \
            <name>-<UTC time>.json/.md plus a stable <name>-latest copy.
            """,
        arguments: [ArgumentSpec("plan", help: "The plan file to run.")],
        options: PlanOptions.options + [
            OptionSpec("out", short: "o", value: "dir", help: "Write reports into this directory instead of the plan's report.dir."),
            OptionSpec(
                "format", value: "formats", help: "Report formats, comma-separated: json, markdown, junit.",
                default: "the plan's report.formats"),
            OptionSpec("shard", value: "i/n", help: "Run the i-th of n equal slices of the load, for merging later."),
            OptionSpec("insecure", help: "Do not verify TLS certificates of https targets (recorded in the report)."),
            OptionSpec("quiet", short: "q", help: "Print nothing but errors; no summary, no progress line."),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        context.console.printError(
            "Error: 'survey-bot run' is not built yet: the engine lands with issues #3 and #4. Use 'survey-bot validate' to check plans.")
        return .validationFailure
    }
}
