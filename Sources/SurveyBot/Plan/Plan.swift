import SurveyEngine

/// A validated plan: every key of the plan format understood, defaults applied, CLI overrides
/// merged. This is what `run` hands to the engine and what a report records as "the plan as run".
public struct Plan: Sendable, Hashable {
    /// What the run sends traffic to.
    public enum Target: Sendable, Hashable, CustomStringConvertible {
        /// The in-process reference server on a free loopback port, set up by `builtin`.
        case builtin
        case url(HTTPTarget)

        public var description: String {
            switch self {
            case .builtin: return "builtin"
            case .url(let target): return target.description
            }
        }
    }

    /// The load model.
    public enum Load: Sendable, Hashable {
        /// `respondents` in total, each taking the survey once.
        case closed(respondents: Int)
        /// New respondents arrive at `rate` (if set) and then follow the `ramp` stages.
        case open(rate: Rate?, ramp: [RampStage])
    }

    public struct Retry: Sendable, Hashable {
        public var questions: RetryPolicy
        public var submit: RetryPolicy
        public var budget: RetryBudgetPolicy?
    }

    public struct ReportSettings: Sendable, Hashable {
        public enum Format: String, Sendable, Hashable, CaseIterable {
            case json, markdown, junit
        }

        public var formats: [Format]
        /// Relative paths are relative to the working directory, like every path on the command line.
        public var directory: String
        /// Whether the answers given are written into reports (they may be personal data).
        public var includeAnswers: Bool
    }

    /// The report title; the plan file's name without `.plan` unless `name:` says otherwise.
    public var name: String
    public var target: Target
    public var load: Load
    /// At most this many respondents at once.
    public var concurrency: Int
    /// Closed model: an optional wall-time cap. Open model: how long arrivals go on.
    public var duration: Duration?
    /// Per HTTP attempt, from sending the request to the last byte of the response.
    public var timeout: Duration
    /// Per TCP connect; the request timeout when not given.
    public var connectTimeout: Duration
    /// The pause before each submit.
    public var think: DurationRange
    public var order: QuestionOrder
    /// Nil when the plan gives none: the run then picks one and records it in the report.
    public var seed: UInt64?
    public var api: SurveyAPI
    public var answers: AnswerBook
    public var retry: Retry
    public var thresholds: [Threshold]
    /// Used when `target` is `builtin`.
    public var builtin: ReferenceServerConfiguration
    public var report: ReportSettings
    /// Dotted key paths (`api.headers.Authorization`) whose values came from the environment.
    /// Reports show them as `<redacted>`.
    public var environmentKeys: Set<String>

    /// The keys of the plan format, at the top level.
    static let topLevelKeys = [
        "name", "target", "respondents", "concurrency", "duration", "rate", "ramp", "timeout",
        "connect_timeout", "think", "order", "seed", "api", "answers", "retry", "thresholds",
        "builtin", "report",
    ]
}

extension Plan {
    /// The defaults applied when a key is absent. Documented in docs/plan-format.md.
    enum Defaults {
        static let respondents = 1
        static let concurrency = 10
        static let timeout = Duration.seconds(5)
        static let fallbackAnswer = "ok"
        static let reportFormats: [ReportSettings.Format] = [.json, .markdown]
        static let reportDirectory = "reports"

        static var questionsRetry: RetryPolicy {
            RetryPolicy(
                attempts: 3,
                backoff: Backoff(.exponential, initial: .milliseconds(200), max: .seconds(5), multiplier: 2),
                jitter: .full,
                retryOn: try! RetryConditions(names: ["5xx", "timeout", "connection"]))
        }

        static var submitRetry: RetryPolicy {
            RetryPolicy(
                attempts: 3,
                backoff: Backoff(.exponential, initial: .milliseconds(200), max: .seconds(5), multiplier: 2),
                jitter: .full,
                retryOn: try! RetryConditions(names: ["400", "5xx", "timeout", "connection"]))
        }
    }

    /// A one-line summary for `validate`: model, respondents or rate, concurrency, target.
    public var summary: String {
        var parts: [String] = []
        switch load {
        case .closed(let respondents):
            parts.append("closed model, \(respondents) respondent\(respondents == 1 ? "" : "s")")
        case .open(let rate, let ramp):
            var text = "open model"
            if let rate { text += ", \(rate)" }
            if !ramp.isEmpty { text += ", ramp of \(ramp.count) stage\(ramp.count == 1 ? "" : "s") to \(ramp.last!.target)" }
            parts.append(text)
        }
        if let duration { parts.append("for \(duration.compactDescription)") }
        parts.append("concurrency \(concurrency)")
        parts.append("target \(target)")
        if !thresholds.isEmpty { parts.append("\(thresholds.count) threshold\(thresholds.count == 1 ? "" : "s")") }
        return parts.joined(separator: ", ")
    }
}
