/// `survey-bot merge A.json B.json … --out ALL.json`: combines the reports of shards.
enum MergeCommand: Subcommand {
    static let spec = CommandSpec(
        name: "merge",
        abstract: "Merge the reports of one plan's shards into the report of the whole run.",
        arguments: [ArgumentSpec("report", help: "JSON reports of the same plan.", repeating: true)],
        options: [
            OptionSpec("out", short: "o", value: "file", help: "Where to write the merged JSON report.")
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        context.console.printError("Error: 'survey-bot merge' is not built yet: reports land with issue #5.")
        return .validationFailure
    }
}
