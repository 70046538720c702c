import Testing

@testable import SurveyBot

/// What a command printed and returned.
struct CommandResult {
    var status: ExitCode
    var out: String
    var err: String
}

/// Runs the real command-line entry point with captured output.
func runCommand(_ arguments: [String], environment: [String: String] = [:]) async -> CommandResult {
    let capture = CapturingConsole()
    let status = await SurveyBotCommand.main(arguments: arguments, environment: environment, console: capture.console)
    return CommandResult(status: status, out: capture.standardOutput, err: capture.standardError)
}
