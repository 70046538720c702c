/// What every subcommand is given: the environment and where to write.
struct CommandContext: Sendable {
    var environment: [String: String]
    var console: Console

    init(environment: [String: String], console: Console) {
        self.environment = environment
        self.console = console
    }
}

/// One subcommand: its spec (options, help) and its `run`, which returns the exit status.
protocol Subcommand: SendableMetatype {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode
}

/// A subcommand as a value, so the list of subcommands is plain data.
struct SubcommandEntry: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments, CommandContext) async -> ExitCode

    init<C: Subcommand>(_ command: C.Type) {
        spec = C.spec
        run = { arguments, context in await C.run(arguments, context: context) }
    }
}
