/// `survey-bot validate PLAN…`: checks plans without sending anything.
enum ValidateCommand: Subcommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check plan files and print every error, or a summary of each plan.",
        discussion: "Nothing is sent to any target. Overrides are checked as they would be by 'run'.",
        arguments: [ArgumentSpec("plan", help: "Plan files to check.", repeating: true)],
        options: PlanOptions.options,
        exitCodes: [
            (.success, "every plan is valid"), (.validationFailure, "usage, or a plan with errors (each printed with file:line:col)"),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let overrides: PlanOverrides
        do throws(UsageError) {
            overrides = try PlanOptions.overrides(from: arguments)
        } catch {
            return spec.usageError(error.description, console: context.console)
        }
        let loader = PlanLoader(environment: context.environment)
        var failed = 0
        for path in arguments.positionals {
            switch loader.load(path: path, overrides: overrides) {
            case .success(let plan):
                for warning in plan.warnings { context.console.printError(warning.description) }
                context.console.print("\(path): ok — \(plan.summary)")
                for note in plan.notes { context.console.print("  note: \(note)") }
            case .failure(let errors):
                failed += 1
                for line in errors.printed(path: path) { context.console.printError(line) }
            }
        }
        return failed == 0 ? .success : .validationFailure
    }
}
