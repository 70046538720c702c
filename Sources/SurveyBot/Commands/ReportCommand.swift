/// `survey-bot report FILE.json`: re-renders a saved report.
enum ReportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Render a saved JSON report again, in any report format.",
        discussion: "The output is what 'run' wrote for the same report: formats are rendered from the JSON alone.",
        arguments: [ArgumentSpec("report", help: "A JSON report written by 'run' or 'merge'.")],
        options: [
            OptionSpec(
                "format", value: "format", help: ReportFormat.allCases.map(\.rawValue).joined(separator: ", ") + ".", default: "text")
        ],
        exitCodes: [
            (.success, "the report was rendered"), (.validationFailure, "usage, or a file that is not a report this version reads"),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            return spec.usageError(
                arguments.positionals.isEmpty ? "missing the report file" : "report takes one report file", console: console)
        }
        let format: ReportFormat
        do throws(UsageError) {
            format = try arguments.choice("format", default: .text)
        } catch {
            return spec.usageError(error.description, console: console)
        }
        let report: RunReport
        do throws(RunReport.ReadError) {
            report = try RunReport.read(path: path)
        } catch {
            console.printError("Error: \(TerminalText.escaped(error.description))")
            return .validationFailure
        }
        do throws(JSONEncodingError) {
            console.out(try format.render(report))
        } catch {
            console.printError("Error: cannot render \(path): \(error.description)")
            return .validationFailure
        }
        return .success
    }
}
