import SurveyEngine
import SurveyMetrics

/// Two reports side by side, figure by figure, each with the interval the data puts it in and
/// a verdict that knows noise from change: a figure regressed only when it got worse by more
/// than the tolerance (and the noise floor) and the change is significant at the diff's
/// confidence, tested for all figures together (Holm). Otherwise it is `~`, with the reason.
/// docs/diff.md explains the statistics.
struct ReportDiff {
    enum Verdict: String, Encodable {
        /// No change that counts (`~`); the row's reason says why.
        case same
        case improved, regressed
        /// The step was called in the base run and not in the new one.
        case missing
        /// The step was called in the new run only.
        case added
    }

    /// Why a row is `~`, or how its change was judged.
    enum Reason: String, Encodable {
        /// The change is not significant at the diff's confidence.
        case withinNoise = "within_noise"
        /// Significant, but no larger than the tolerance or the noise floor.
        case withinTolerance = "within_tolerance"
        /// A run has fewer samples than the figure needs to say anything (`minimum_samples`).
        case tooFewSamples = "too_few_samples"
        /// Shown, never judged unless given a tolerance of its own: max, min, attempts per second.
        case notGated = "not_gated"
        /// Significant and beyond the tolerance.
        case significant
        /// A figure without a test that was given a tolerance of its own: judged by it alone.
        case toleranceOnly = "tolerance_only"
    }

    enum Direction { case lowerIsBetter, higherIsBetter }

    enum Unit: String, Encodable {
        case ms, ratio
        case perSecond = "per_s"
        case count
    }

    struct Row: Encodable {
        var scope: String
        var metric: String
        var unit: Unit
        /// `null` in JSON where there is no figure.
        @NullWhenAbsent var base: Double? = nil
        @NullWhenAbsent var new: Double? = nil
        /// `[lower, upper]` at the diff's confidence; absent when the figure has no interval
        /// or too few samples for one.
        var baseInterval: [Double]?
        var newInterval: [Double]?
        /// The samples behind each figure: calls, attempts, respondents or latencies.
        var baseSamples: Int?
        var newSamples: Int?
        @NullWhenAbsent var change: Double? = nil
        /// The relative change in percent, of the "bad" quantity for rates (failures for a
        /// success rate): 99% → 95% success is +400% failures. `null` when the base is 0, or so
        /// near it that the ratio is not a finite number.
        @NullWhenAbsent var changePercent: Double? = nil
        /// The p-value of the change, Holm-adjusted over the diff's tested figures.
        var pValue: Double?
        var verdict: Verdict
        var reason: Reason?
        /// With `too_few_samples`: the fewest samples each run needs.
        var minimumSamples: Int?

        enum CodingKeys: String, CodingKey {
            case metric, unit, base, new, change, verdict, reason
            // `endpoint`: what steps were called before journeys were data.
            case scope = "endpoint"
            case baseInterval = "base_interval"
            case newInterval = "new_interval"
            case baseSamples = "base_samples"
            case newSamples = "new_samples"
            case changePercent = "change_percent"
            case pValue = "p_value"
            case minimumSamples = "minimum_samples"
        }
    }

    /// How much worse a metric may get before it counts, as a fraction (any size: 1.5 is
    /// 150%): `default` for all, `overrides` by metric name (`p99`) or step and metric
    /// (`submit.p99`). An override is also what makes max, min or attempts per second count.
    struct Tolerances {
        var `default` = 0.10
        var overrides: [String: Double] = [:]

        func tolerance(scope: String, metric: String) -> Double {
            explicit(scope: scope, metric: metric) ?? `default`
        }

        /// The tolerance given for this metric itself, if any.
        func explicit(scope: String, metric: String) -> Double? {
            overrides["\(scope).\(metric)"] ?? overrides[metric]
        }
    }

    /// Changes smaller than these never count, however significant: 0.1 → 0.15 ms is +50%
    /// and, over a million samples, real, but nobody's problem.
    static let latencyFloorMs = 0.2
    static let ratioFloor = 0.005
    static let rateFloor = 1.0

    static let defaultConfidence = 0.95

    var rows: [Row]
    /// How each question's figures moved (`QuestionChange`): shown, never judged; empty when
    /// neither report has per-question figures.
    var questions: [QuestionChange]
    /// The questions whose figures moved: those the text, Markdown and HTML diffs list.
    var movedQuestions: [QuestionChange] { questions.filter(\.changed) }
    /// `2 of 10 questions moved (shown, not judged)`, or nil when neither report has
    /// per-question figures.
    var questionsText: String? {
        guard !questions.isEmpty else { return nil }
        let moved = movedQuestions.count
        return
            "\(moved == 0 ? "none" : String(moved)) of \(questions.count) question\(questions.count == 1 ? "" : "s") moved (shown, not judged)"
    }
    /// The two reports compared, for the formats that draw them (HTML).
    var baseReport: RunReport
    var newReport: RunReport
    /// The two reports' paths, as the user gave them.
    var basePath: String
    var newPath: String
    var tolerances: Tolerances
    /// The confidence of every interval, and 1 − the chance that two runs of the same plan
    /// show a regression.
    var confidence: Double
    var regressions: [Row] { rows.filter { $0.verdict == .regressed || $0.verdict == .missing } }
    /// The reports that are partial merges (`merge --allow-partial`): their figures lack whole
    /// shards, so the diff cannot pass, whatever its rows say.
    var partialReports: [PartialReport]
    /// No regression, and both reports whole.
    var passed: Bool { regressions.isEmpty && partialReports.isEmpty }

    /// A partial merge among the two reports.
    struct PartialReport: Encodable {
        /// `base` or `new`.
        var report: String
        var path: String
        var missingShards: [Int]
        /// `missing shard 3 of 4`.
        var missingText: String

        enum CodingKeys: String, CodingKey {
            case report, path
            case missingShards = "missing_shards"
        }
    }

    /// `PARTIAL merge: new.json is missing shard 3 of 4`, each path written by `path`, or nil
    /// when both reports are whole.
    func partialText(path: (String) -> String = { $0 }) -> String? {
        guard !partialReports.isEmpty else { return nil }
        return "PARTIAL merge: "
            + partialReports.map { "\(path($0.path)) is missing \($0.missingText.dropFirst("missing ".count))" }.joined(separator: "; ")
    }
    /// Figures a run had too few samples to judge.
    var tooFewSamples: [Row] { rows.filter { $0.reason == .tooFewSamples } }
    /// Whether the two reports say they ran different plans (their `plan_digest`s differ): a
    /// diff across a plan change is allowed, and said, since its figures may differ for that
    /// reason alone. False when either report predates digests.
    var differentPlans: Bool {
        guard let base = baseReport.planDigest, let new = newReport.planDigest else { return false }
        return base != new
    }

    init(
        base: RunReport, new: RunReport, tolerances: Tolerances, confidence: Double = defaultConfidence, basePath: String = "base",
        newPath: String = "new"
    ) {
        self.basePath = basePath
        self.newPath = newPath
        partialReports = [("base", basePath, base), ("new", newPath, new)].compactMap { role, path, report in
            report.missingShardsText.map {
                PartialReport(report: role, path: path, missingShards: report.missingShards ?? [], missingText: $0)
            }
        }
        baseReport = base
        newReport = new
        questions = QuestionChange.all(base: base.questions, new: new.questions)
        self.tolerances = tolerances
        self.confidence = confidence
        // Rows in order: a step missing from one run is a row as it stands; a figure of
        // both runs becomes a row once every figure has been tested.
        enum Entry {
            case row(Row)
            case comparison(Comparison)
        }
        var entries: [Entry] = []
        for name in RunReport.stepNames([base, new]) {
            let baseCalls = base.stepReports[name]?.calls ?? 0
            let newCalls = new.stepReports[name]?.calls ?? 0
            if baseCalls == 0 && newCalls == 0 { continue }
            if newCalls == 0 || baseCalls == 0 {
                entries.append(
                    .row(
                        Row(
                            scope: name, metric: "calls", unit: .count, base: Double(baseCalls), new: Double(newCalls),
                            verdict: newCalls == 0 ? .missing : .added)))
                continue
            }
            guard let before = base.stepReports[name], let after = new.stepReports[name] else { continue }
            entries += Comparison.step(name, before, after, base: base, new: new, confidence: confidence).map(Entry.comparison)
        }
        if base.respondents.started > 0 && new.respondents.started > 0 {
            let figure = { (report: RunReport) in
                DiffFigure.proportion(part: report.respondents.completed, whole: report.respondents.started, confidence: confidence)
            }
            entries.append(
                .comparison(
                    Comparison(
                        scope: Threshold.Scope.surveyName, metric: "completion_rate", unit: .ratio, direction: .higherIsBetter,
                        base: figure(base),
                        new: figure(new))))
        }
        // Test every figure that can be judged, then adjust the p-values for testing them all.
        let tested = entries.indices.compactMap { index -> (index: Int, pValue: Double)? in
            guard case .comparison(let comparison) = entries[index], comparison.gated, comparison.hasEnoughSamples(confidence: confidence)
            else { return nil }
            return (index, DiffFigure.pValue(comparison.base, comparison.new) ?? 1)
        }
        let adjusted = Dictionary(uniqueKeysWithValues: zip(tested.map(\.index), DiffStatistics.holm(tested.map(\.pValue))))
        rows = entries.indices.map { index in
            switch entries[index] {
            case .row(let row): row
            case .comparison(let comparison): comparison.row(pValue: adjusted[index], confidence: confidence, tolerances: tolerances)
            }
        }
    }

    var summary: String {
        let bad = regressions
        var text =
            bad.isEmpty
            ? "no regressions"
            : "\(bad.count) regression\(bad.count == 1 ? "" : "s"): " + bad.map { "\($0.scope) \($0.metric)" }.joined(separator: ", ")
        if !partialReports.isEmpty {
            text +=
                (bad.isEmpty ? ", but not a pass: " : "; and ")
                + partialReports.map { "\($0.path) is a partial merge (\($0.missingText))" }.joined(separator: ", ")
        }
        let blind = tooFewSamples.count
        if blind > 0 { text += "; \(blind) figure\(blind == 1 ? "" : "s") had too few samples to judge" }
        if differentPlans { text += "; the reports ran different plans (their plan_digest differs)" }
        let unjudged = RunReport.stepNames([baseReport, newReport]).filter { name in
            guard let base = baseReport.stepReports[name], let new = newReport.stepReports[name] else { return false }
            return base.latencyCoversFailures != new.latencyCoversFailures
        }
        if !unjudged.isEmpty {
            let role = baseReport.keepsFailedLatencyApart ? "new" : "base"
            text +=
                "; latency of \(unjudged.joined(separator: ", ")) not judged: the \(role) report counts failed attempts in it "
                + "(written by a version before failed attempts were kept apart)"
        }
        return text
    }
}

extension ReportDiff {
    /// One figure of both runs, before it is judged.
    struct Comparison {
        var scope: String
        var metric: String
        var unit: Unit
        var direction: Direction
        var base: DiffFigure
        var new: DiffFigure
        /// Judged by default; max, min and attempts per second are shown only.
        var gated = true

        /// Every figure of a step called in both runs.
        static func step(
            _ name: String, _ before: RunReport.StepReport, _ after: RunReport.StepReport, base: RunReport, new: RunReport,
            confidence: Double
        ) -> [Comparison] {
            var comparisons: [Comparison] = []
            func add(
                _ metric: String, _ unit: Unit, _ direction: Direction, gated: Bool = true,
                _ figure: (RunReport.StepReport, RunReport) -> DiffFigure
            ) {
                comparisons.append(
                    Comparison(
                        scope: name, metric: metric, unit: unit, direction: direction, base: figure(before, base),
                        new: figure(after, new), gated: gated))
            }
            add("success_rate", .ratio, .higherIsBetter) { e, _ in .proportion(part: e.succeeded, whole: e.calls, confidence: confidence) }
            add("first_try_success_rate", .ratio, .higherIsBetter) { e, _ in
                .proportion(part: e.firstTrySucceeded, whole: e.calls, confidence: confidence)
            }
            add("error_rate", .ratio, .lowerIsBetter) { e, _ in
                .proportion(part: e.failedAttempts, whole: e.attempts, confidence: confidence)
            }
            // Retries per call is r / (1 − r) for r, the retries of all attempts: a proportion in disguise.
            add("retries_per_call", .ratio, .lowerIsBetter) { e, _ in
                .proportion(part: max(0, e.attempts - e.calls), whole: e.attempts, confidence: confidence) {
                    $0 < 1 ? $0 / (1 - $0) : .infinity
                }
            }
            // Latencies only where both runs have one: a step none of whose attempts succeeded
            // has none. Where one report counted failed attempts in its latency (a version before
            // `failed_histogram`) and the other did not, the two are shown but not judged.
            if before.correctedLatencyMs != nil && after.correctedLatencyMs != nil {
                let comparable = before.latencyCoversFailures == after.latencyCoversFailures
                func histogram(_ step: RunReport.StepReport) -> Histogram { step.correctedHistogram.histogram ?? Histogram() }
                func samples(_ step: RunReport.StepReport) -> Int { Int(clamping: step.correctedHistogram.count) }
                add("mean", .ms, .lowerIsBetter, gated: comparable) { e, _ in
                    .mean(value: e.correctedLatencyMs?.mean ?? 0, histogram: histogram(e), confidence: confidence)
                }
                for (metric, quantile) in [("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)] {
                    add(metric, .ms, .lowerIsBetter, gated: comparable) { e, _ in
                        let value = e.correctedLatencyMs?.value(Threshold.Metric(rawValue: metric) ?? .p50) ?? 0
                        return .percentile(quantile, value: value, histogram: histogram(e), confidence: confidence)
                    }
                }
                add("min", .ms, .lowerIsBetter, gated: false) { e, _ in
                    DiffFigure(value: e.correctedLatencyMs?.min ?? 0, samples: samples(e), evidence: .none)
                }
                add("max", .ms, .lowerIsBetter, gated: false) { e, _ in
                    DiffFigure(value: e.correctedLatencyMs?.max ?? 0, samples: samples(e), evidence: .none)
                }
            }
            add("attempts_per_s", .perSecond, .higherIsBetter, gated: false) { e, report in
                DiffFigure(value: RunFigures.perSecond(e.attempts, seconds: report.durationS), samples: e.attempts, evidence: .none)
            }
            return comparisons
        }

        /// The fewest samples each run needs for this figure; nil when it has no test.
        func minimumSamples(confidence: Double) -> Int? {
            base.minimumSamples(confidence: confidence)
        }

        func hasEnoughSamples(confidence: Double) -> Bool {
            guard let minimum = minimumSamples(confidence: confidence) else { return false }
            return base.samples >= minimum && new.samples >= minimum
        }

        /// The row with its verdict: `pValue` is the Holm-adjusted p-value, nil when untested.
        func row(pValue: Double?, confidence: Double, tolerances: Tolerances) -> Row {
            let change = new.value - base.value
            let floor =
                switch unit {
                case .ms: ReportDiff.latencyFloorMs
                case .ratio: ReportDiff.ratioFloor
                case .perSecond: ReportDiff.rateFloor
                case .count: 0.5
                }
            // Rates near 100% are compared by what they miss: 99% → 95% success is five times the failures.
            let complement = unit == .ratio && direction == .higherIsBetter
            let badBase = complement ? 1 - base.value : base.value
            let badNew = complement ? 1 - new.value : new.value
            // A base so near 0 that the ratio overflows has no relative change either.
            let relative: Double? = badBase == 0 ? (badNew == 0 ? 0 : nil) : ((badNew - badBase) / abs(badBase)).finite
            let explicit = tolerances.explicit(scope: scope, metric: metric)
            let tolerance = explicit ?? tolerances.default
            let beyond = abs(change) > floor && (relative.map { abs($0) > tolerance } ?? true)
            let worse = direction == .lowerIsBetter ? change > 0 : change < 0
            let changed: Verdict = worse ? .regressed : .improved
            var verdict = Verdict.same
            let reason: Reason
            var minimum: Int?
            if !gated {
                if explicit == nil {
                    reason = .notGated
                } else if beyond {
                    (verdict, reason) = (changed, .toleranceOnly)
                } else {
                    reason = .withinTolerance
                }
            } else if !hasEnoughSamples(confidence: confidence) {
                reason = .tooFewSamples
                minimum = minimumSamples(confidence: confidence)
            } else if (pValue ?? 1) > 1 - confidence {
                reason = .withinNoise
            } else if !beyond {
                reason = .withinTolerance
            } else {
                (verdict, reason) = (changed, .significant)
            }
            return Row(
                scope: scope, metric: metric, unit: unit, base: rounded(base.value), new: rounded(new.value),
                baseInterval: base.interval.map { [rounded($0.lowerBound), rounded($0.upperBound)] },
                newInterval: new.interval.map { [rounded($0.lowerBound), rounded($0.upperBound)] }, baseSamples: base.samples,
                newSamples: new.samples, change: rounded(change), changePercent: relative.flatMap { (($0 * 1000).rounded() / 10).finite },
                pValue: pValue.map(rounded), verdict: verdict, reason: reason, minimumSamples: minimum)
        }
    }
}

private func rounded(_ value: Double) -> Double {
    value.isFinite ? (value * 1_000_000).rounded() / 1_000_000 : value
}

extension Double {
    /// The value, or nil when it is infinite or NaN.
    var finite: Double? { isFinite ? self : nil }
}
