/// `survey-bot diff BASE NEW`: what got slower or less reliable between two runs.
enum DiffCommand: Subcommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare two reports and exit 1 when the new one regressed.",
        discussion: """
            Per endpoint: success rates, error rate, retries per call, latency (mean, p50…p999, max) \
            and attempts per second; and the survey's completion rate. A change is a regression when \
            it is worse by more than the tolerance and by more than the noise floor (0.2 ms for \
            latencies, 0.5 percentage points for rates, 1/s for throughput). Success rates are \
            compared by their failures: 99% → 95% is five times as many failures. An endpoint called \
            in BASE but not in NEW is a regression.
            """,
        arguments: [
            ArgumentSpec("base", help: "The earlier report (JSON)."),
            ArgumentSpec("new", help: "The later report (JSON)."),
        ],
        options: [
            OptionSpec(
                "format", value: "format", help: DiffFormat.allCases.map(\.rawValue).joined(separator: ", ") + ".", default: "text"),
            OptionSpec(
                "tolerance", value: "tolerance",
                help: "Allowed worsening before a change counts as a regression: 10% for every metric, or metric=20% for one.",
                default: "10%", repeatable: true),
        ])

    static let metricNames = [
        "success_rate", "first_try_success_rate", "error_rate", "retries_per_call", "mean", "p50", "p90", "p95", "p99", "p999", "max",
        "attempts_per_s", "completion_rate",
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard arguments.positionals.count == 2 else {
            return spec.usageError("diff takes two reports: BASE.json NEW.json", console: console)
        }
        let format: DiffFormat
        let tolerances: ReportDiff.Tolerances
        do throws(UsageError) {
            format = try arguments.choice("format", default: .text)
            tolerances = try parseTolerances(arguments.values("tolerance"))
        } catch {
            return spec.usageError(error.description, console: console)
        }
        let basePath = arguments.positionals[0]
        let newPath = arguments.positionals[1]
        let base: RunReport
        let new: RunReport
        do throws(RunReport.ReadError) {
            base = try RunReport.read(path: basePath)
            new = try RunReport.read(path: newPath)
        } catch {
            console.printError("Error: \(error.description)")
            return .validationFailure
        }
        let diff = ReportDiff(base: base, new: new, tolerances: tolerances, basePath: basePath, newPath: newPath)
        do throws(JSONEncodingError) {
            console.out(try format.render(diff))
        } catch {
            console.printError("Error: cannot write the diff of \(basePath) and \(newPath): \(error.description)")
            return .validationFailure
        }
        return diff.regressions.isEmpty ? .success : .failure
    }

    static func parseTolerances(_ values: [String]) throws(UsageError) -> ReportDiff.Tolerances {
        var tolerances = ReportDiff.Tolerances()
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            let amountText = parts.count == 2 ? parts[1] : parts[0]
            guard case .success(let amount) = ValueKind<Double>.fraction.read(amountText) else {
                throw UsageError("--tolerance \(value): expected a percentage like 10% or metric=20%")
            }
            if parts.count == 2 {
                let key = parts[0]
                let metric = String(key.split(separator: ".").last ?? "")
                guard metricNames.contains(metric) else {
                    let hint = Suggestions.closest(to: metric, in: metricNames).map { " (did you mean '\($0)'?)" } ?? ""
                    throw UsageError("--tolerance \(value): unknown metric '\(metric)'\(hint)")
                }
                tolerances.overrides[key] = amount
            } else {
                tolerances.default = amount
            }
        }
        return tolerances
    }
}
