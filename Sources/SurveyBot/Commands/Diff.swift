/// `survey-bot diff BASE NEW`: what got slower or less reliable between two runs.
enum DiffCommand: Subcommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare two reports and exit 1 when the new one regressed.",
        arguments: [
            ArgumentSpec("base", help: "The earlier report (JSON)."),
            ArgumentSpec("new", help: "The later report (JSON)."),
        ],
        options: [
            OptionSpec("format", value: "format", help: "text, markdown or json.", default: "text"),
            OptionSpec(
                "tolerance", value: "tolerance",
                help: "Allowed worsening before a change counts as a regression: 10% for every metric, or metric=20% for one.",
                default: "10%", repeatable: true),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        context.console.printError("Error: 'survey-bot diff' is not built yet: reports land with issue #5.")
        return .validationFailure
    }
}
