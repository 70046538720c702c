/// `survey-bot help [COMMAND]`: the same text as `--help`.
enum HelpCommand: Subcommand {
    static let spec = CommandSpec(
        name: "help",
        abstract: "Show help for a subcommand.",
        arguments: [ArgumentSpec("subcommand", help: "The subcommand to describe.", optional: true)],
        exitCodes: [(.success, "help was shown"), (.validationFailure, "no such subcommand")])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        guard let name = arguments.positionals.first else {
            context.console.out(SurveyBotCommand.help)
            return .success
        }
        guard let command = SurveyBotCommand.subcommand(named: name) else {
            var message = "unknown command '\(name)'"
            if let suggestion = Suggestions.closest(to: name, in: SurveyBotCommand.subcommands.map(\.spec.name)) {
                message += " (did you mean '\(suggestion)'?)"
            }
            return CommandSpec.usageError(message, usage: spec.usage, helpHint: "survey-bot --help", console: context.console)
        }
        context.console.out(command.spec.help)
        return .success
    }
}
