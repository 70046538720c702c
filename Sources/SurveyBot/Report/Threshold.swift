/// A pass/fail criterion of a run, written in a plan as `submit.p95: "< 300ms"`.
struct Threshold: Sendable, Hashable, CustomStringConvertible {
    /// Which figures the metric is read from.
    enum Scope: String, Sendable, Hashable, CaseIterable {
        case questions, submit
        /// Both endpoints together, plus the respondent-level figures.
        case survey
    }

    enum Metric: String, Sendable, Hashable, CaseIterable {
        case successRate = "success_rate"
        case firstTrySuccessRate = "first_try_success_rate"
        case errorRate = "error_rate"
        case min, mean, p50, p90, p95, p99, p999, max
        case retries
        case completionRate = "completion_rate"
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
            case .successRate, .firstTrySuccessRate, .errorRate, .completionRate: return .ratio
            case .min, .mean, .p50, .p90, .p95, .p99, .p999, .max: return .latency
            case .retries: return .count
            case .attemptsPerSecond: return .perSecond
            }
        }

        /// Whether the metric exists for the scope: completion is a property of the survey.
        func applies(to scope: Scope) -> Bool {
            self != .completionRate || scope == .survey
        }
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

    init(scope: Scope, metric: Metric, comparison: Comparison, limit: Double, limitText: String) {
        self.scope = scope
        self.metric = metric
        self.comparison = comparison
        self.limit = limit
        self.limitText = limitText
    }

    /// `submit.p95`: the key in plans and reports.
    var name: String { "\(scope.rawValue).\(metric.rawValue)" }

    var description: String { "\(name) \(comparison.rawValue) \(limitText)" }

    /// Whether an actual value meets the threshold. A missing value (NaN: no data) never does.
    func holds(actual: Double) -> Bool {
        !actual.isNaN && comparison.holds(actual, limit)
    }
}
