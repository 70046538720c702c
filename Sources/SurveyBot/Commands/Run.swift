import Foundation
import SurveyEngine
import Synchronization

/// `survey-bot run PLAN`: runs a plan against its target and writes the report.
enum RunCommand: Subcommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Run a plan against its target and write the report.",
        discussion: """
            Virtual respondents fetch the questions, answer and submit them with the plan's retry \
            policies. 'target: builtin' starts the reference server in-process on a loopback port. \
            The report is written to the plan's report.dir (default reports/) as \
            <name>-<UTC time>.json/.md plus a stable <name>-latest copy. The first Ctrl-C stops \
            starting respondents, lets the attempts in flight finish and writes a partial report \
            (exit 130); a second one exits at once.
            """,
        arguments: [ArgumentSpec("plan", help: "The plan file to run.")],
        options: PlanOptions.options + [
            OptionSpec("out", short: "o", value: "dir", help: "Write reports into this directory instead of the plan's report.dir."),
            OptionSpec(
                "format", value: "formats", help: "Report formats, comma-separated: json, markdown, junit.",
                default: "the plan's report.formats"),
            OptionSpec("shard", value: "i/n", help: "Run the i-th of n equal slices of the load, for merging later."),
            OptionSpec(
                "insecure",
                help: "Skip TLS certificate verification. Refused on Linux, where URLSession cannot skip it: verification stays on."),
            OptionSpec("quiet", short: "q", help: "Print nothing but errors; no summary, no progress line."),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        func usage(_ message: String) -> ExitCode {
            SurveyBotCommand.usageError(message, usage: spec.usage, helpHint: "survey-bot run --help", console: console)
        }
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            return usage(arguments.positionals.isEmpty ? "missing the plan file" : "run takes one plan file")
        }
        let overrides: PlanOverrides
        let shard: Shard
        let formats: [Plan.ReportSettings.Format]?
        do throws(UsageError) {
            overrides = try PlanOptions.overrides(from: arguments)
            shard = try parseShard(arguments.value("shard"))
            formats = try arguments.value("format").map(parseFormats)
        } catch {
            return usage(error.description)
        }
        if arguments.flag("insecure") {
            console.printError("Error: --insecure is not available: TLS verification cannot be turned off on this platform's URLSession")
            return .validationFailure
        }

        let plan: Plan
        switch PlanLoader(environment: context.environment).load(path: path, overrides: overrides) {
        case .success(let loaded): plan = loaded
        case .failure(let errors):
            for diagnostic in errors.diagnostics { console.printError(diagnostic.description) }
            let count = errors.diagnostics.count
            console.printError("\(path): \(count) error\(count == 1 ? "" : "s"); nothing was sent")
            return .validationFailure
        }
        let writer = ReportWriter(directory: arguments.value("out") ?? plan.report.directory)
        do throws(ReportWriter.WriteError) {
            try writer.prepare()
        } catch {
            console.printError("Error: \(error.description); nothing was sent")
            return .validationFailure
        }
        let quiet = arguments.flag("quiet")
        let seed = plan.run.seed ?? UInt64.random(in: 0...999_999)
        let group = EventLoopGroup()
        var server: ReferenceServer?
        let target: HTTPTarget
        switch plan.target {
        case .url(let url): target = url
        case .builtin:
            var builtin = plan.builtin
            builtin.seed = seed
            do throws(ReferenceServer.StartError) {
                let started = try ReferenceServer(configuration: builtin, host: "127.0.0.1", port: 0, group: group)
                let missing = plan.run.answers.unanswerable(among: started.questions.map(\.id))
                if !missing.isEmpty {
                    await started.shutdown()
                    group.shutdown()
                    let list = missing.prefix(5).map(String.init).joined(separator: ", ")
                    console.printError(
                        "Error: \(path): the plan has no answer for question\(missing.count == 1 ? "" : "s") \(list)"
                            + "\(missing.count > 5 ? ", …" : "") and no \"*\" fallback; nothing was sent")
                    return .validationFailure
                }
                server = started
            } catch {
                group.shutdown()
                console.printError("Error: \(error.description); nothing was sent")
                return .validationFailure
            }
            target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server!.port)
        }
        let transport: any Transport =
            target.scheme == .https
            ? URLSessionTransport(target: target, concurrency: plan.run.concurrency, configuration: plan.run.client)
            : HTTPClient(target: target, group: group, configuration: plan.run.client)
        var configuration = plan.run
        configuration.seed = seed
        configuration.shard = shard
        let coordinator = RunCoordinator(configuration: configuration, target: target, transport: transport, executors: group.loops)

        let signals = SignalWatcher()
        let signalTask = Task {
            var count = 0
            for await signal in signals.signals {
                count += 1
                if count == 1 {
                    console.printError(
                        "\n\(SignalWatcher.name(signal)): stopping — letting attempts in flight finish, then writing the report (again to quit now)"
                    )
                    coordinator.stop()
                } else {
                    console.printError("\(SignalWatcher.name(signal)) again: exiting without a report")
                    exitProcess(.interrupted)
                }
            }
        }
        let showProgress = !quiet && console.errorIsTerminal
        let progressTask = showProgress ? Task { await Progress.show(coordinator, plan: plan, shard: shard, console: console) } : nil
        if !quiet {
            let where_ = plan.target == .builtin ? "builtin server at \(target)" : target.description
            console.printError("survey-bot \(SurveyEngine.version): running \(plan.name) against \(where_) — \(plan.summary)")
        }

        let startedAt = Date()
        let result = await coordinator.run()
        let endedAt = Date()
        progressTask?.cancel()
        _ = await progressTask?.value
        await transport.shutdown()
        await server?.shutdown()
        group.shutdown()

        let facts = RunReport.RunFacts(
            plan: plan, target: plan.target == .builtin ? "builtin" : target.description, startedAt: startedAt, endedAt: endedAt,
            elapsed: result.elapsed, seed: seed, shard: shard, interrupted: result.interrupted, insecure: false)
        let report = RunReport.make(metrics: result.metrics, facts: facts)
        let written: [String]
        do throws(ReportWriter.WriteError) {
            written = try writeReports(report, formats: formats ?? plan.report.formats, shard: shard, writer: writer, started: startedAt)
        } catch {
            // The numbers are not lost with the files: the summary goes to stdout, --quiet or not.
            signalTask.cancel()
            console.print(TextReport.render(report))
            console.printError("Error: \(error.description); the summary above is all that is left of this run")
            return .failure
        }
        signalTask.cancel()
        signals.restoreDefaults()
        if !quiet {
            console.print(TextReport.render(report))
            for file in written { console.print("report: \(file)") }
        }
        if report.interrupted { return .interrupted }
        return report.passed ? .success : .failure
    }

    static func writeReports(
        _ report: RunReport, formats: [Plan.ReportSettings.Format], shard: Shard, writer: ReportWriter, started: Date
    ) throws(ReportWriter.WriteError) -> [String] {
        let stamp = started.formatted(
            Date.ISO8601FormatStyle(timeSeparator: .omitted).year().month().day().time(includingFractionalSeconds: false)
        )
        .replacingOccurrences(of: "-", with: "")
        let base = safeFileName(report.name) + (shard == .whole ? "" : "-shard-\(shard.index)-of-\(shard.count)")
        var written: [String] = []
        for format in formats {
            let (text, suffix): (String, String)
            switch format {
            case .json: (text, suffix) = (report.jsonText(), "json")
            case .markdown: (text, suffix) = (MarkdownReport.render(report), "md")
            case .junit: (text, suffix) = (JUnitReport.render(report), "xml")
            }
            written.append(try writer.write(text, to: "\(base)-\(stamp)Z.\(suffix)"))
            try writer.write(text, to: "\(base)-latest.\(suffix)")
        }
        return written
    }

    /// A plan name made safe for a file name: letters, digits, `-`, `_`, `.`.
    static func safeFileName(_ name: String) -> String {
        let cleaned = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") ? $0 : "-" })
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "run" + cleaned : cleaned
    }

    static func parseShard(_ text: String?) throws(UsageError) -> Shard {
        guard let text else { return .whole }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= 10_000 else {
            throw UsageError("--shard \(text): expected i/n, like 2/3")
        }
        guard (1...count).contains(index) else { throw UsageError("--shard \(text): i must be between 1 and \(count)") }
        return Shard(index: index, count: count)
    }

    static func parseFormats(_ text: String) throws(UsageError) -> [Plan.ReportSettings.Format] {
        var formats: [Plan.ReportSettings.Format] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let format = Plan.ReportSettings.Format(rawValue: name) else {
                let names = Plan.ReportSettings.Format.allCases.map(\.rawValue)
                let hint = Suggestions.closest(to: name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError("--format: unknown format '\(name)'\(hint); expected \(names.joined(separator: ", "))")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        guard !formats.isEmpty else { throw UsageError("--format: give at least one format") }
        return formats
    }
}

/// The live progress line on a terminal: respondents done, attempts per second, errors, p95.
enum Progress {
    static func show(_ coordinator: RunCoordinator, plan: Plan, shard: Shard, console: Console) async {
        let recorder = coordinator.recorder
        let total: String
        switch plan.run.load {
        case .closed(let respondents): total = "/\(shard.count(of: respondents))"
        case .open: total = ""
        }
        var lastAttempts = 0
        var last = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            let progress = recorder.progress
            let now = ContinuousClock.now
            let rate = Double(progress.attempts - lastAttempts) / max((now - last).seconds, 0.001)
            lastAttempts = progress.attempts
            last = now
            let metrics = recorder.snapshot()
            var latency = metrics.questions.correctedLatency
            latency.merge(metrics.submit.correctedLatency)
            let p95 = MarkdownReport.ms(milliseconds(Double(latency.value(atPercentile: 95))))
            let stopping = coordinator.isStopping ? " · stopping" : ""
            console.err(
                "\r\u{1B}[K  respondents \(progress.respondentsFinished)\(total) done · \(Int(rate)) req/s · "
                    + "errors \(progress.failedAttempts) · p95 \(p95)\(stopping)")
        }
        console.err("\r\u{1B}[K")
    }
}
