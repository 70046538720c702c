import SurveyEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `survey-bot` command: dispatches to subcommands, prints help and the version.
public enum SurveyBotCommand {
    static let subcommands: [SubcommandEntry] = [
        SubcommandEntry(RunCommand.self), SubcommandEntry(ValidateCommand.self),
        SubcommandEntry(ServeCommand.self), SubcommandEntry(DiffCommand.self),
        SubcommandEntry(ReportCommand.self), SubcommandEntry(MergeCommand.self), SubcommandEntry(ImportCommand.self),
        SubcommandEntry(ReplayCommand.self), SubcommandEntry(HelpCommand.self),
    ]

    static let abstract = "a headless survey automation and load-test tool."

    /// Runs the command line (without the program name) and returns the exit status.
    static func main(arguments: [String], environment: [String: String], console: Console) async -> ExitCode {
        let context = CommandContext(environment: environment, console: console)
        guard let first = arguments.first else {
            console.out(help)
            return .success
        }
        switch first {
        case "--help", "-h":
            console.out(help)
            return .success
        case "--version":
            console.print(SurveyEngine.version)
            return .success
        default:
            break
        }
        guard let command = subcommand(named: first) else {
            var message = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            let names = subcommands.map(\.spec.name) + ["--help", "--version"]
            if let suggestion = Suggestions.closest(to: first, in: names) {
                message += " (did you mean '\(suggestion)'?)"
            }
            return CommandSpec.usageError(message, usage: usage, helpHint: "survey-bot --help", console: console)
        }
        let parser = ArgumentParser(spec: command.spec)
        do throws(UsageError) {
            switch try parser.parse(Array(arguments.dropFirst())) {
            case .help:
                console.out(command.spec.help)
                return .success
            case .arguments(let parsed):
                return await command.run(parsed, context)
            }
        } catch {
            return CommandSpec.usageError(
                error.description, usage: command.spec.usage, helpHint: "survey-bot \(command.spec.name) --help", console: console)
        }
    }

    /// Runs with the process's own environment and standard streams. `arguments` are the
    /// command line without the program name; the result is the status to exit with.
    ///
    /// The process's soft limit on open files is raised to its hard limit first, as Go's
    /// runtime does: a load test's connections should meet the limit the administrator set, not
    /// a default kept low for `select()`.
    public static func main(arguments: [String]) async -> ExitCode {
        OpenFilesLimit.raiseSoftToHard()
        // A reader that closes the pipe (`survey-bot run … | head -1`) must not kill a run before
        // its reports are written: writes to it fail with EPIPE instead, and the console skips
        // the rest of that stream. The exit status stays the verdict.
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessEnvironment.current
        return await main(arguments: arguments, environment: environment, console: .standard(environment: environment))
    }

    static func subcommand(named name: String) -> SubcommandEntry? {
        subcommands.first { $0.spec.name == name }
    }

    static var usage: String { "survey-bot <subcommand> [options]" }

    static var help: String {
        var text = "OVERVIEW: survey-bot — \(abstract)\n\n"
        text += """
            Thousands of virtual respondents take a survey the way the survey app does (fetch the
            questions, answer, submit, retry) against a survey API, and the run is reported as
            JSON, Markdown and JUnit that CI can gate on and diff.

            USAGE: \(usage)

            OPTIONS:

            """
        text += CommandSpec.row("--version", "Show the version.")
        text += CommandSpec.row("-h, --help", "Show help information.")
        text += "\nSUBCOMMANDS:\n"
        for command in subcommands {
            text += CommandSpec.row(command.spec.name, command.spec.abstract)
        }
        text += "\n  See 'survey-bot help <subcommand>' for detailed help.\n"
        text += "\nEXIT CODES:\n\(ExitCode.table)\n  Each command's --help says what its own codes mean.\n"
        return text
    }
}
