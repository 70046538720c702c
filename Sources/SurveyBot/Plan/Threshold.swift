import SurveyEngine
import SurveyJourney

/// A pass/fail criterion of a run, written in a plan as `submit.p95: "< 300ms"`.
struct Threshold: Sendable, Hashable, CustomStringConvertible {
    // Parsed once, from a plan (`PlanDecoder+Thresholds.swift`) or a report (`ThresholdResult`).
    /// Which figures the metric is read from: a step's, or the whole survey's.
    enum Scope: Sendable, Hashable, CustomStringConvertible {
        /// One step of the journey, by name.
        case step(String)
        /// Every step together, plus the respondent-level figures.
        case survey

        /// The word that names the whole survey; no step may be called so.
        static let surveyName = "survey"

        /// The scope a threshold's name starts with: `survey`, or the step of that name.
        init(_ name: String) {
            self = name == Self.surveyName ? .survey : .step(name)
        }

        /// The scope of a step of the engine's.
        static func step(_ step: Step) -> Scope { .step(step.name) }

        /// As plans and reports write it: `submit`, `survey`.
        var description: String {
            switch self {
            case .step(let name): name
            case .survey: Self.surveyName
            }
        }
    }

    enum Metric: String, Sendable, Hashable, CaseIterable {
        case successRate = "success_rate"
        case firstTrySuccessRate = "first_try_success_rate"
        case errorRate = "error_rate"
        case min, mean, p50, p90, p95, p99, p999, max
        case retries
        case completionRate = "completion_rate"
        case droppedRate = "dropped_rate"
        case attemptsPerSecond = "attempts_per_s"

        /// How limits and actual values of the metric are expressed.
        enum Unit: Sendable {
            /// Milliseconds.
            case latency
            /// A fraction between 0 and 1 (written as a percentage).
            case ratio
            /// A count.
            case count
            /// Attempts per second.
            case perSecond
        }

        var unit: Unit {
            switch self {
            case .successRate, .firstTrySuccessRate, .errorRate, .completionRate, .droppedRate: return .ratio
            case .min, .mean, .p50, .p90, .p95, .p99, .p999, .max: return .latency
            case .retries: return .count
            case .attemptsPerSecond: return .perSecond
            }
        }

        /// Whether the metric exists for the scope: completion and dropped arrivals are
        /// properties of the survey.
        func applies(to scope: Scope) -> Bool {
            (self != .completionRate && self != .droppedRate) || scope == .survey
        }

        /// Whether the metric is a latency, which needs successful attempts to mean anything.
        var isLatency: Bool { unit == .latency }
    }

    enum Comparison: String, Sendable, Hashable, CaseIterable {
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case greater = ">"

        func holds(_ actual: Double, _ limit: Double) -> Bool {
            switch self {
            case .less: return actual < limit
            case .lessOrEqual: return actual <= limit
            case .greater: return actual > limit
            case .greaterOrEqual: return actual >= limit
            case .equal: return actual == limit
            case .notEqual: return actual != limit
            }
        }
    }

    var scope: Scope
    var metric: Metric
    var comparison: Comparison
    /// In the metric's unit: milliseconds, a fraction, a count, or per second.
    var limit: Double
    /// The right-hand side as the plan wrote it, such as `300ms` or `95%`.
    var limitText: String
    /// Not written in the plan: judged because the plan has no thresholds (`implicitCompletion`).
    var implicit = false
    /// `abort: true`: judged during the run too, which stops early when it fails (`AbortCheck`).
    var abort = false
    /// With `abort`: how long the run goes on before the threshold is judged (`after: 30s`).
    var abortAfter = Duration.zero

    init(scope: Scope, metric: Metric, comparison: Comparison, limit: Double, limitText: String, implicit: Bool = false) {
        self.scope = scope
        self.metric = metric
        self.comparison = comparison
        self.limit = limit
        self.limitText = limitText
        self.implicit = implicit
    }

    /// `survey.completion_rate > 0`: judged on a run whose plan has no thresholds, so that a run
    /// in which no respondent completed the survey never passes.
    static let implicitCompletion = Threshold(
        scope: .survey, metric: .completionRate, comparison: .greater, limit: 0, limitText: "0", implicit: true)

    /// `submit.p95`: the key in plans and reports.
    var name: String { "\(scope).\(metric.rawValue)" }

    var description: String { "\(name) \(comparison.rawValue) \(limitText)" }

    /// The threshold with its options, as the plan digest and the plan record write it:
    /// `submit.success_rate >= 95% (abort after 30s)`.
    var planText: String {
        guard abort else { return description }
        return description + (abortAfter > .zero ? " (abort after \(abortAfter.compactDescription))" : " (abort)")
    }

    /// The options a threshold written as a block takes besides its `check`.
    static let optionKeys = ["check", "abort", "after"]

    /// Whether an actual value meets the threshold. A missing value (NaN: no data) never does.
    func holds(actual: Double) -> Bool {
        !actual.isNaN && comparison.holds(actual, limit)
    }
}
