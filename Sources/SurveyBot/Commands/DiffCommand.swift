import Foundation

/// `survey-bot diff BASE NEW`: what got slower or less reliable between two runs, told apart
/// from noise.
enum DiffCommand: Subcommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare two reports and exit 1 when the new one regressed beyond noise.",
        discussion: """
            Per step: success rates, error rate, retries per call, latency (mean, p50…p999, \
            min, max) and attempts per second; and the survey's completion rate. Each figure is \
            shown with the interval the report's own data puts it in. A change is a regression \
            only when it is worse by more than the tolerance (and the noise floor: 0.2 ms, 0.5 \
            percentage points, 1/s) and significant at the confidence, tested for all figures \
            together; otherwise it is shown as ~ with the reason: within noise, within tolerance, \
            or too few samples (with the fewest each run needs: p99 needs 368 at 95%). Success \
            rates are compared by their failures: 99% → 95% is five times as many failures. Min, \
            max and attempts per second are shown but judged only when given a tolerance of their \
            own (--tolerance max=50%). A step called in BASE but not in NEW is a \
            regression. docs/diff.md explains the statistics.
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
                help: "Allowed worsening before a change counts as a regression, any percentage (150% too): 10% for every "
                    + "metric, or metric=20% (submit.p99=20%) for one.",
                default: "10%", repeatable: true),
            OptionSpec(
                "confidence", value: "confidence",
                help: "Confidence of the intervals and the tests, above 0% and below 100%: at 95%, two runs of the same "
                    + "plan are called a regression in at most 5% of diffs.",
                default: "95%"),
        ],
        exitCodes: [
            (.success, "no regression: every change is noise, within tolerance or not judged"),
            (.failure, "a regression beyond tolerance and noise, a step missing in NEW, or a report that is a partial merge"),
            (.validationFailure, "bad input: usage, an unreadable report, or another report schema"),
        ])

    static let metricNames = [
        "success_rate", "first_try_success_rate", "error_rate", "retries_per_call", "mean", "p50", "p90", "p95", "p99", "p999", "min",
        "max", "attempts_per_s", "completion_rate",
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let console = context.console
        guard arguments.positionals.count == 2 else {
            return spec.usageError("diff takes two reports: BASE.json NEW.json", console: console)
        }
        let format: DiffFormat
        let tolerances: ReportDiff.Tolerances
        let confidence: Double
        do throws(UsageError) {
            format = try arguments.choice("format", default: .text)
            tolerances = try parseTolerances(arguments.values("tolerance"))
            confidence = try parseConfidence(arguments.value("confidence"))
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
            console.printError("Error: \(TerminalText.escaped(error.description))")
            return .validationFailure
        }
        let diff = ReportDiff(base: base, new: new, tolerances: tolerances, confidence: confidence, basePath: basePath, newPath: newPath)
        do throws(JSONEncodingError) {
            console.out(try format.render(diff))
        } catch {
            console.printError("Error: cannot write the diff of \(basePath) and \(newPath): \(error.description)")
            return .validationFailure
        }
        return diff.passed ? .success : .failure
    }

    static func parseTolerances(_ values: [String]) throws(UsageError) -> ReportDiff.Tolerances {
        var tolerances = ReportDiff.Tolerances()
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            let amountText = parts.count == 2 ? parts[1] : parts[0]
            let amount: Double
            switch percentage(amountText) {
            case .success(let fraction): amount = fraction
            case .failure(let problem): throw UsageError("--tolerance \(value): \(problem.description)")
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

    /// `--confidence 95%` or `0.95`, strictly between 0 and 1.
    static func parseConfidence(_ value: String?) throws(UsageError) -> Double {
        guard let value else { return ReportDiff.defaultConfidence }
        switch percentage(value) {
        case .success(let fraction) where fraction > 0 && fraction < 1: return fraction
        case .success: throw UsageError("--confidence \(value): must be above 0% and below 100%, such as 95% or 99%")
        case .failure(let problem): throw UsageError("--confidence \(value): \(problem.description)")
        }
    }

    /// A non-negative percentage of any size (`10%`, `150%`) or a fraction from 0 to 1 (`0.1`),
    /// as a fraction.
    static func percentage(_ text: String) -> Result<Double, UsageError> {
        let trimmed = text.trimmingCharacters(in: " ")
        let isPercent = trimmed.hasSuffix("%")
        let number = isPercent ? String(trimmed.dropLast()).trimmingCharacters(in: " ") : trimmed
        guard let value = parseDecimal(number), value.isFinite else {
            return .failure(UsageError("expected a percentage like 10% or 150%, or a fraction like 0.1"))
        }
        if value < 0 { return .failure(UsageError("must not be negative")) }
        if isPercent { return .success(value / 100) }
        if value > 1 {
            return .failure(UsageError("a bare number is a fraction from 0 to 1: write \(Readable.number(value * 100))% (or \(trimmed)%)"))
        }
        return .success(value)
    }
}
