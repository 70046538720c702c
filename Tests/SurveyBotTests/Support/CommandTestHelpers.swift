import Testing

@testable import SurveyBot

/// What a command printed and returned.
struct CommandResult {
    var status: ExitCode
    var out: String
    var err: String
}

/// Runs the real command-line entry point with captured output.
///
/// It first gives up its thread: a command that reads and renders reports never suspends, and a
/// test that runs thousands of them in a row (the report fuzz) would otherwise hold one of the
/// cooperative pool's two threads for half a minute, and every task of other tests waiting for it.
func runCommand(_ arguments: [String], environment: [String: String] = [:]) async -> CommandResult {
    await Task.yield()
    let capture = CapturingConsole()
    let status = await SurveyBotCommand.main(arguments: arguments, environment: environment, console: capture.console)
    return CommandResult(status: status, out: capture.standardOutput, err: capture.standardError)
}
