import SurveyEngine
import SurveyJourney
import SurveyMetrics
import SurveyWire

/// `survey-bot replay PLAN RECORDING.har`: runs a plan once, with one respondent, and compares
/// each step's response with the recording's — the check of an imported plan.
enum ReplayCommand: Subcommand {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "Run a plan once with one respondent and compare each step's response with a recording.",
        discussion: """
            The plan runs as 'run' runs it, with one respondent, no think time and no retries, and no \
            report is written. Each attempt is paired, in order, with the recorded request its step \
            stands for (the same method, and a path its step's matches, each ${…} any segment's \
            value): the statuses must be the same, and so must the shapes of the responses — a JSON \
            document's member paths and value kinds, an HTML page's title and form field names, \
            another body's content type — values left aside. A table of the steps is printed, then \
            the first step that diverges and, when one is found, the value that probably needed a \
            capture: a literal the plan sends that the recording first received in a response. \
            Values are shown shortened; credentials and the environment's values never. See \
            docs/import.md, "Replay".
            """,
        arguments: [
            ArgumentSpec("plan", help: "The plan to replay, as 'import' wrote it or edited since."),
            ArgumentSpec("recording", help: "The HAR 1.2 recording to compare the replay with."),
        ],
        options: PlanOptions.options.filter { replayOptions.contains($0.name) },
        exitCodes: [
            (.success, "every step's response matched the recording's: the same status and shape"),
            (.failure, "a step diverged (it is named, with the value that probably needed a capture when one is found)"),
            (.validationFailure, "usage, the plan or the recording: file:line:col, and nothing was sent"),
            (.interrupted, "interrupted by SIGINT (Ctrl-C)"),
        ])

    /// The plan options a replay takes: where it goes and how, not how much load.
    static let replayOptions: Set<String> = ["target", "seed", "http", "proxy", "set", "insecure"]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard arguments.positionals.count == 2 else {
            return spec.usageError(
                arguments.positionals.count < 2 ? "give the plan and the recording" : "replay takes one plan and one recording",
                console: console)
        }
        let (path, recordingPath) = (arguments.positionals[0], arguments.positionals[1])
        let overrides: PlanOverrides
        do throws(UsageError) {
            overrides = try PlanOptions.overrides(from: arguments)
        } catch {
            return spec.usageError(error.description, console: console)
        }
        let loader = PlanLoader(environment: context.environment)
        let plan: Plan
        switch loader.load(path: path, overrides: overrides) {
        case .success(let loaded): plan = loaded
        case .failure(let errors):
            for line in errors.printed(path: path, suffix: "; nothing was sent") { console.printError(line) }
            return .validationFailure
        }
        for warning in plan.warnings { console.printError(warning.description) }
        // The recording's origin is the plan's own target, whatever --target aims the replay at.
        var recordedTarget = plan.target
        if arguments.value("target") != nil, case .success(let own) = loader.load(path: path) { recordedTarget = own.target }
        let recording: HARFile
        switch HARFile.read(path: recordingPath) {
        case .success(let file): recording = file
        case .failure(let error):
            console.printError(error.description)
            console.printError("\(TerminalText.escaped(recordingPath, limit: 1_000)): 1 error; nothing was sent")
            return .validationFailure
        }

        let log = AttemptLog(lanes: 1, capacity: 1 << 16)
        let kept = RecordingTransport.Kept()
        var options = PlanRun.Options(quiet: true)
        options.writesReport = false
        options.attemptLog = log
        options.wrapTransport = { RecordingTransport($0, keepingIn: kept) }
        console.printError(
            TerminalText.escaped(
                "survey-bot \(SurveyEngine.version): replaying \(plan.name) once, one respondent, against \(plan.shownTarget); "
                    + "comparing with \(recordingPath) (\(recording.entries.count) recorded request\(recording.entries.count == 1 ? "" : "s"))"
            ))
        let status = await PlanRun(plan: Self.once(plan), path: path, options: options, console: console).run()
        if status == .validationFailure || status.rawValue >= 128 { return status }

        var logged: [LoggedAttempt] = []
        log.drain(lane: 0, into: &logged)
        let attempts = ReplayedAttempt.attempts(exchanges: kept.exchanges, logged: logged)
        var origin: String?
        var basePath = ""
        if case .url(let target) = recordedTarget {
            origin = HTTPTarget(scheme: target.scheme, host: target.host, port: target.port).description
            basePath = target.basePath
        }
        var patterns: [(step: String, pattern: PathPattern)] = []
        var literals: [String: [CaptureHint.Literal]] = [:]
        for step in plan.run.journey.steps {
            patterns.append((step.step.name, PathPattern(method: step.call.method, path: step.call.path, basePath: basePath)))
            literals[step.step.name] = CaptureHint.literals(of: step, apiHeaders: plan.run.api.headers)
        }
        let comparison = ReplayComparison(
            recorded: recording.entries.map(Exchange.init), origin: origin, replayed: attempts, patterns: patterns)
        let hint = comparison.matches ? nil : CaptureHint.find(in: comparison, literals: literals, secrets: plan.secrets)
        for line in comparison.table { console.print(line) }
        for line in comparison.verdict(hint: hint, shownCall: { plan.shownCall(Step($0)) }) { console.print(line) }
        return comparison.matches ? .success : .failure
    }

    /// `plan` as a replay runs it: one respondent, once, without think times, pauses, retries,
    /// a duration or thresholds — each step called as the recording's walk called it, at once.
    static func once(_ plan: Plan) -> Plan {
        var plan = plan
        plan.run.load = .closed(respondents: 1)
        plan.run.concurrency = 1
        plan.run.duration = nil
        plan.run.think = .zero
        plan.run.pace = nil
        plan.run.retry = RetryPolicies()
        plan.thresholds = []
        if var journey = plan.run.declaredJourney {
            for index in journey.steps.indices { journey.steps[index].think = nil }
            plan.run.declaredJourney = journey
        }
        return plan
    }
}
