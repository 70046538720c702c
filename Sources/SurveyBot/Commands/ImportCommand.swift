/// `survey-bot import RECORDING.har`: a browser's recording of a walk through a survey turned
/// into a plan that runs it.
enum ImportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Turn a browser's recording of a walk through a survey (a HAR file) into a plan.",
        discussion: """
            Keeps the survey's own documents, form posts and XHR/fetch calls to the origin of the first \
            page, in order, as the journey's steps; leaves out static assets, other origins, favicons, \
            preflights and service workers, and says so. A value a response gave that a later request \
            sends back (a token, a session id, a CSRF field) becomes a capture and ${session.NAME}; \
            passwords, credentials and session cookies become ${ENV} variables named at the plan's top, \
            never written or printed. Posts of one page after another (JSON pages, HTML forms) become \
            one step that runs per_page, the answers typed under answers:. With --again, a second \
            recording of the same walk: a value the client made (different in each, from no response) \
            becomes ${respondent.id}, and an answer given otherwise lists both. The plan is \
            checked as 'validate' checks it, written to --output or stdout, and what was kept, left \
            out, correlated and guessed is printed on stderr and at the plan's top. See docs/import.md.
            """,
        arguments: [ArgumentSpec("recording", help: "A HAR 1.2 file: DevTools' \"Save all as HAR\", mitmproxy, Playwright.")],
        options: [
            OptionSpec(
                "again", value: "recording", help: "A second recording of the same walk, to tell what the client made and add its answers."),
            OptionSpec("output", short: "o", value: "plan", help: "Write the plan to this file instead of stdout."),
            OptionSpec("no-think", help: "Leave out the recorded pauses (each step's think)."),
        ],
        exitCodes: [
            (.success, "the plan was written, and passes validate"),
            (.failure, "the plan made does not pass validate: its errors are printed, nothing is written"),
            (.validationFailure, "usage, or a recording that cannot be read (file:line:col) or holds nothing to import"),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            return spec.usageError(
                arguments.positionals.isEmpty ? "missing the recording" : "import takes one recording (a second goes after --again)",
                console: console)
        }
        guard let file = read(path, console: console) else { return .validationFailure }
        var again: HARFile?
        if let second = arguments.value("again") {
            guard let file = read(second, console: console) else { return .validationFailure }
            again = file
        }
        let output = arguments.value("output")
        let name = PlanLoader.defaultName(for: output ?? Self.planName(for: path))
        let source = (path.split(separator: "/").last.map(String.init) ?? path) + (file.creator.isEmpty ? "" : " (\(file.creator))")
        let options = RecordingImport.Options(name: name, source: source, thinkTimes: !arguments.flag("no-think"))
        let imported: RecordingImport
        switch RecordingImport.make(file, again: again, options: options) {
        case .success(let result): imported = result
        case .failure(let failure):
            console.printError("Error: \(TerminalText.escaped(path)): \(failure.description)")
            return .validationFailure
        }
        let text = imported.planText
        let planPath = output ?? "\(name).plan"
        if case .failure(let errors) = check(text, path: planPath, imported: imported, environment: context.environment) {
            for line in errors.printed(path: planPath) { console.printError(line) }
            console.printError("Error: the plan made from \(TerminalText.escaped(path)) does not pass validate; nothing was written")
            return .failure
        }
        if let output {
            let parts = output.split(separator: "/", omittingEmptySubsequences: false)
            let directory = parts.count > 1 ? parts.dropLast().joined(separator: "/") : "."
            do throws(ReportWriter.WriteError) {
                try ReportWriter(directory: directory.isEmpty ? "/" : directory).write(text, to: String(parts.last ?? ""))
            } catch {
                console.printError("Error: \(TerminalText.escaped(error.description))")
                return .validationFailure
            }
        } else {
            console.out(text)
        }
        console.printError(
            "\(TerminalText.escaped(path)) → \(TerminalText.escaped(output ?? "stdout")): \(imported.names.uniqued().count) steps")
        for line in imported.summary { console.printError("  " + TerminalText.escaped(line, limit: 2_000)) }
        return .success
    }

    /// The plan's name from a recording's file name: `walk1.har` is `walk1`.
    static func planName(for path: String) -> String {
        var file = path.split(separator: "/").last.map(String.init) ?? path
        for suffix in [".har", ".min"] where file.hasSuffix(suffix) && file.count > suffix.count { file.removeLast(suffix.count) }
        return file
    }

    /// The plan as `validate` reads it, each variable it names from the environment given a
    /// stand-in value when it is not set: the user sets them before a run.
    static func check(_ text: String, path: String, imported: RecordingImport, environment: [String: String]) -> Result<Plan, PlanErrors> {
        var environment = environment
        for secret in imported.secrets where environment[secret.name] == nil { environment[secret.name] = "set-before-running" }
        return PlanLoader(environment: environment).load(text: text, path: path)
    }

    private static func read(_ path: String, console: Console) -> HARFile? {
        switch HARFile.read(path: path) {
        case .success(let file): return file
        case .failure(let error):
            console.printError(error.description)
            return nil
        }
    }
}
