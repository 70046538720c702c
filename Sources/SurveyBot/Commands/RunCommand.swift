import Foundation
import SurveyEngine
import SurveyJourney

/// `survey-bot run PLAN`: runs a plan against its target and writes the report.
enum RunCommand: Subcommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Run a plan against its target and write the report.",
        discussion: """
            Virtual respondents fetch the questions, answer and submit them with the plan's retry \
            policies — or walk the plan's 'journey' of declared steps (a login, a page loop, every \
            answer in one request, checks of what the server said: docs/plan-format.md, \
            "Journeys"). 'target: builtin' starts the reference server in-process on a loopback port. \
            The report is written to the plan's report.dir (default reports/) as \
            <name>-<UTC time>.json/.md (-2, -3… after the time when a report of that second is \
            there already) plus a stable <name>-latest copy (Prometheus metrics, --format \
            prometheus, only as <name>-latest.prom, for node_exporter's textfile collector); a \
            shard's name is <name>-shard-<i>-of-<n> (--shard), which merge takes. The \
            first Ctrl-C (SIGINT), \
            SIGTERM or SIGHUP stops starting respondents, lets the attempts in flight finish (within \
            the grace) and writes a partial report (exit 128 + the signal's number: 130, 143, 129); a second one \
            exits at once — but a copy of the same signal within 250 ms is the same request (timeout, \
            CI runners, systemd and Kubernetes signal the process and then its group). A threshold with 'abort: true' that fails during the run stops it the \
            same way as its duration would, and the run fails.
            """,
        arguments: [ArgumentSpec("plan", help: "The plan file to run.")],
        options: PlanOptions.options + [
            OptionSpec("out", short: "o", value: "dir", help: "Write reports into this directory instead of the plan's report.dir."),
            OptionSpec(
                "format", value: "formats",
                help: "Report formats, comma-separated: " + ReportFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    + ". JSON is always written too: the source of truth 'report', 'diff' and 'merge' read.",
                default: "the plan's report.formats"),
            OptionSpec(
                "shard", value: "i/n",
                help: "Run the i-th of n equal slices of the load, for merging later: every n-th respondent (or arrival), and "
                    + "every n-th row of the plan's data file."),
            OptionSpec(
                "run-id", value: "id",
                help: "The run this report belongs to, the same on every shard: a CI run number, a Kubernetes Job's uid.",
                default: "a new random UUID"),
            OptionSpec(
                "raw", value: "file.jsonl",
                help: "Also write every attempt as one JSON line (time, respondent, step, attempt, status or error, latency, "
                    + "bytes) to this file, emptied first. Lines the disk cannot keep up with are dropped and counted in the report "
                    + "(raw.dropped), never slowing the load. See docs/exports.md."),
            OptionSpec(
                "metrics-listen", value: "host:port",
                help: "Serve the run's figures so far while it runs: a live page at http://HOST:PORT/ (verdict so far, "
                    + "progress, the HTML report's charts, refreshed every second) and Prometheus metrics at /metrics. "
                    + "127.0.0.1:9464 (a port alone is 127.0.0.1's), or the host's own address for a scraper on another host. "
                    + "See docs/live.md."),
            OptionSpec(
                "metrics-linger", value: "duration",
                help: "With --metrics-listen: once the report is written, go on serving the final state (the verdict, "
                    + "/report.html, /report.json) for this long before exiting; a signal ends the wait, the exit status stays "
                    + "the run's.",
                default: "0s: the listener closes when the report is written"),
            OptionSpec("quiet", short: "q", help: "Print nothing but errors; no summary, no progress line."),
        ],
        exitCodes: [
            (.success, "every threshold held (or the plan has none and some respondent completed the survey)"),
            (
                .failure,
                "a threshold failed (an abort threshold may stop the run early), no respondent completed a plan without "
                    + "thresholds, survey-bot ran out of file descriptors or ports (local_resource), or the report files "
                    + "could not be written (the summary is still printed)"
            ),
            (.validationFailure, "usage, plan, TLS files or report directory: nothing was sent"),
            (.interrupted, "interrupted by SIGINT (Ctrl-C); a partial report was written"),
            (.signalled(SIGTERM), "interrupted by SIGTERM; a partial report was written"),
            (
                .signalled(SIGHUP),
                "interrupted by SIGHUP (the terminal closed); a partial report was written (a second signal exits at once "
                    + "with 128 + its number, without a report)"
            ),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            return spec.usageError(arguments.positionals.isEmpty ? "missing the plan file" : "run takes one plan file", console: console)
        }
        let overrides: PlanOverrides
        var options: PlanRun.Options
        do throws(UsageError) {
            overrides = try PlanOptions.overrides(from: arguments)
            options = PlanRun.Options(
                shard: try parseShard(arguments.value("shard")), formats: try arguments.value("format").map(parseFormats),
                directory: arguments.value("out"), quiet: arguments.flag("quiet"))
            options.raw = arguments.value("raw")
            if options.raw?.isEmpty == true { throw UsageError("--raw: give a file name") }
            options.metricsListen = try arguments.value("metrics-listen").map(MetricsListener.Address.parse)
            if let linger = arguments.value("metrics-linger") {
                options.metricsLinger = try parseLinger(linger)
                if options.metricsListen == nil && options.metricsLinger > .zero {
                    throw UsageError("--metrics-linger \(linger): there is nothing to linger without --metrics-listen")
                }
            }
            if let runID = arguments.value("run-id") {
                if let problem = RunReport.runIDProblem(runID) { throw UsageError(problem) }
                options.runID = runID
            }
        } catch {
            return spec.usageError(error.description, console: console)
        }
        switch PlanLoader(environment: context.environment).load(path: path, overrides: overrides) {
        case .success(var plan):
            if !options.quiet {
                for warning in plan.warnings { console.printError(warning.description) }
            }
            if options.shard.count > 1 && arguments.value("run-id") == nil {
                // Said even with --quiet: found only at merge time, it would cost the whole run.
                console.printError(
                    "warning: --shard \(options.shard) without --run-id: this shard's reports name a run of their own, and merge "
                        + "will refuse them beside other shards; give every shard the same --run-id")
            }
            if let idle = idleShard(plan, options.shard) {
                // Said even with --quiet: the run's failure ("no respondent completed") would not say why.
                console.printError("warning: \(idle)")
            }
            // A shard keeps only the rows its respondents can take: 1/n of the feed's memory.
            plan.run.data = plan.run.data?.share(for: options.shard)
            return await PlanRun(plan: plan, path: path, options: options, console: console).run()
        case .failure(let errors):
            for line in errors.printed(path: path, suffix: "; nothing was sent") { console.printError(line) }
            return .validationFailure
        }
    }

    /// `--metrics-linger`'s duration: `30s`, `2m`, `0`.
    static func parseLinger(_ text: String) throws(UsageError) -> Duration {
        switch parseDuration(text) {
        case .value(let duration): return duration
        case .invalid(let why), .invalidAt(let why, _): throw UsageError("--metrics-linger \(text): \(why)")
        case .wrongKind: throw UsageError("--metrics-linger \(text): expected a duration, like 30s or 2m")
        }
    }

    /// Why `shard` of `plan` has nothing to do, if it has not: fewer respondents (closed model)
    /// or data rows than shards before it, each shard taking every n-th.
    static func idleShard(_ plan: Plan, _ shard: Shard) -> String? {
        guard shard.count > 1 else { return nil }
        if case .closed(let respondents) = plan.run.load, shard.count(of: respondents) == 0 {
            return "--shard \(shard) has no respondents: the plan's \(respondents) go to the shards in turn (respondent k to shard "
                + "k mod \(shard.count) + 1), so shards above \(respondents) start none, and their run fails as one that completed none"
        }
        if let data = plan.run.data, shard.count(of: data.totalRows) == 0 {
            return "--shard \(shard) has no rows of the data file's \(data.totalRows): rows go to the shards in turn, so shards above "
                + "\(data.totalRows) start no respondent, and their run fails as one that completed none"
        }
        return nil
    }

    static func parseShard(_ text: String?) throws(UsageError) -> Shard {
        guard let text else { return .whole }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= RunReport.ShardRecord.maxCount
        else {
            throw UsageError("--shard \(text): expected i/n, like 2/3")
        }
        guard (1...count).contains(index) else { throw UsageError("--shard \(text): i must be between 1 and \(count)") }
        return Shard(index: index, count: count)
    }

    static func parseFormats(_ text: String) throws(UsageError) -> [ReportFormat] {
        var formats: [ReportFormat] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let format = ReportFormat(rawValue: name) else {
                let names = ReportFormat.allCases.map(\.rawValue)
                let hint = Suggestions.closest(to: name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError("--format: unknown format '\(name)'\(hint); expected \(names.joined(separator: ", "))")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        guard !formats.isEmpty else { throw UsageError("--format: give at least one format") }
        return formats
    }
}
