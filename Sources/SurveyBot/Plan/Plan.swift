import SurveyEngine
import SurveyJourney
import SurveyWire

/// A validated plan: every key of the plan format understood, defaults applied, command-line
/// overrides merged. What the engine runs is decoded straight into its own `RunConfiguration`;
/// the plan adds only what the engine does not know: the name, the target (which may be the
/// builtin server), the thresholds, the builtin server's settings and the report options.
struct Plan: Sendable, Hashable {
    /// What the run sends traffic to.
    enum Target: Sendable, Hashable, CustomStringConvertible {
        /// The in-process reference server on a free loopback port, set up by `builtin`.
        case builtin
        case url(HTTPTarget)

        var description: String {
            switch self {
            case .builtin: return "builtin"
            case .url(let target): return target.description
            }
        }
    }

    struct ReportSettings: Sendable, Hashable {
        var formats: [ReportFormat]
        /// Relative paths are relative to the working directory, like every path on the command line.
        var directory: String
        /// Whether the answers given are written into reports (they may be personal data).
        var includeAnswers: Bool
        /// The p99 of the tool's own lateness (`RunReport.Lag`) above which reports warn.
        var lagLimit: Duration = .milliseconds(10)
    }

    /// The report title; the plan file's name without `.plan` unless `name:` says otherwise. A
    /// name is only ever shown, so a part from the environment is kept as `${NAME}`.
    var name: String
    var target: Target
    /// What the engine runs: load, respondents, retries, client limits.
    var run: RunConfiguration
    var thresholds: [Threshold]
    /// Used when `target` is `builtin`.
    var builtin: ReferenceServerConfiguration
    var report: ReportSettings
    /// The values that took any part from the environment, by dotted key path
    /// (`api.headers.Authorization`), each list item in order: what `Plan+Display.swift` shows
    /// in their place.
    var environmentText: [String: [PlanText]]
    /// What `validate` says about a valid plan that may not do what its author meant, such as
    /// answers without a `"*"` fallback. Not part of what runs.
    var warnings: [Diagnostic] = []
    /// What `validate` says after a plan's `ok`: settings the run leaves aside on purpose (a
    /// `builtin` block beside another target). Not part of what runs.
    var notes: [String] = []
    /// The data feed's file (`data:`), as read; its rows are in `run.data`.
    var dataFile: DataFile? = nil
    /// How respondents take the rows (`data_order:`), applied to `run.data` once both are read.
    var dataOrder: DataOrder = .sequential
    /// The proxy the plan's `proxy` key (or `--proxy`) asks for; nil leaves it to the environment.
    var proxy: ProxySetting? = nil
    /// Who gave `proxy`, as output names it: the plan, `--proxy` or `--set proxy`.
    var proxyOrigin = "the plan"
    /// The proxy the run goes through, settled with the environment (`resolveProxy`).
    var proxyRoute = ProxyRoute.direct
    /// The files of the `tls` keys, as paths; their text is read into `run.client.tls` when the
    /// plan is checked, for an https target.
    var tlsFiles = TLSFiles()
    /// Paths resolved against the plan file's directory (`builtin.questions_file`), each with
    /// the path as written — what digests, reports and messages show, wherever the plan is run from.
    var writtenPaths: [String: String] = [:]

    /// The key paths whose values took any part from the environment.
    var environmentKeys: Set<String> { Set(environmentText.keys) }

    /// A plan with every key at its default (`PlanKeys.all`), named `name`.
    static func defaults(name: String) -> Plan {
        var plan = Plan(
            name: name, target: .builtin, run: RunConfiguration(load: .closed(respondents: 1)), thresholds: [],
            builtin: ReferenceServerConfiguration(), report: ReportSettings(formats: [], directory: "", includeAnswers: false),
            environmentText: [:])
        for key in PlanKeys.all { key.applyDefault(&plan) }
        return plan
    }
}

extension Plan {
    /// The ids among `ids` that neither the answers (by id, by the builtin typed survey's
    /// type, or `"*"`) nor a data column `answer.<id>` answer.
    func unanswerable(among ids: some Sequence<QuestionID>) -> [QuestionID] {
        let fromData = run.data?.answerColumns ?? [:]
        let types = run.answers.types
        let typed = builtin.survey == .typed && !types.isEmpty
        return run.answers.unanswerable(
            among: ids.filter { id in
                guard fromData[id] == nil else { return false }
                guard typed, let question = TypedSurvey.standard.questions.first(where: { $0.id == id.text }) else { return true }
                // The `html` shape's pages name each type by its kind of input, as `question_choices: form` reads it.
                return types[builtin.api == .html ? question.kind.input : question.kind.rawValue] == nil
            })
    }

    /// A one-line summary for `validate`: model, respondents or rate, concurrency, target.
    var summary: String { summary(naming: true) }

    /// The summary; without the target for a line that names it already (`run`'s first).
    func summary(naming target: Bool) -> String {
        var parts: [String] = []
        switch run.load {
        case .closed(let respondents):
            parts.append("closed model, \(respondents) respondent\(respondents == 1 ? "" : "s")")
        case .open(let rate, let ramp):
            var text = "open model"
            if let rate { text += ", \(rate)" }
            if let last = ramp.last { text += ", ramp of \(ramp.count) stage\(ramp.count == 1 ? "" : "s") to \(last.target)" }
            parts.append(text)
        }
        if let duration = run.duration { parts.append("for \(duration.compactDescription)") }
        parts.append("concurrency \(run.concurrency)")
        if let data = run.data, let file = dataFile {
            parts.append("data \(file.shownPath): \(data.totalRows) row\(data.totalRows == 1 ? "" : "s"), \(data.order.rawValue)")
        }
        if target { parts.append("target \(shownTarget)") }
        if !thresholds.isEmpty { parts.append("\(thresholds.count) threshold\(thresholds.count == 1 ? "" : "s")") }
        // The protocol, when the plan chose it: `auto` and one connection per request say nothing.
        switch run.client.version {
        case .auto: break
        case .http1: parts.append("HTTP/1.1 only")
        case .http2:
            let secure: Bool
            switch self.target {
            case .builtin: secure = builtin.tls != .off
            case .url(let url): secure = url.scheme == .https
            }
            parts.append(secure ? "HTTP/2 only" : "HTTP/2 (h2c)")
        }
        switch run.client.sharing {
        case .shared: parts.append("shared connections")
        case .perRespondent: parts.append("a connection per respondent")
        case .perRequest: break
        }
        if let proxy = proxyRoute.shown { parts.append("proxy \(proxy)") }
        return parts.joined(separator: ", ")
    }
}
