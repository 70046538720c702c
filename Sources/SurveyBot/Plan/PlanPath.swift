import SurveyJourney

/// The path of a top-level plan key that a check between keys looks up (`PlanDecoder.seen(_:)`):
/// each written once, here, and `PlanPathTests` ties every one to an entry of `PlanKeys.all`, so
/// that a misspelt path cannot make a check silently never fire.
struct PlanPath: Hashable, Sendable {
    /// The dotted path, as the key table and diagnostics write it: `retry.budget_min`.
    let text: String

    private init(_ text: String) {
        self.text = text
    }

    static let target = PlanPath("target")
    static let respondents = PlanPath("respondents")
    static let rate = PlanPath("rate")
    static let ramp = PlanPath("ramp")
    static let grace = PlanPath("grace")
    static let answers = PlanPath("answers")
    static let data = PlanPath("data")
    static let dataOrder = PlanPath("data_order")
    static let connections = PlanPath("connections")
    static let proxy = PlanPath("proxy")
    static let cookies = PlanPath("cookies")
    static let thresholds = PlanPath("thresholds")
    static let apiLogin = PlanPath("api.login")
    static let apiLoginBody = PlanPath("api.login_body")
    static let apiCapture = PlanPath("api.capture")
    static let apiSubmitBody = PlanPath("api.submit_body")
    static let retryBudget = PlanPath("retry.budget")
    static let retryBudgetMin = PlanPath("retry.budget_min")
    static let builtinAPI = PlanPath("builtin.api")
    static let builtinLogin = PlanPath("builtin.login")
    static let builtinQuestions = PlanPath("builtin.questions")
    static let builtinQuestionsFile = PlanPath("builtin.questions_file")
    static let builtinTLS = PlanPath("builtin.tls")
    static let builtinSurvey = PlanPath("builtin.survey")
    static let tlsCAFile = PlanPath("tls.ca_file")
    static let tlsClientCert = PlanPath("tls.client_cert")
    static let tlsClientKey = PlanPath("tls.client_key")
    static let tlsMinVersion = PlanPath("tls.min_version")
    /// The builtin server's fault rates that share one connection: `builtin.reset_rate`, ….
    static let builtinConnectionFaultRates = [
        "fail_rate", "error_rate", "reset_rate", "malformed_rate", "slow_rate", "hang_rate", "goaway_rate",
    ].map { PlanPath("builtin." + $0) }

    /// A key of a step's retry block (`initial`, `max`, …): under `retry.<step>`, or under
    /// `journey.<step>.retry` in a plan with a journey.
    static func retry(_ step: Step, _ key: String, declared: Bool) -> PlanPath {
        PlanPath((declared ? "journey.\(step.name).retry." : "retry.\(step.name).") + key)
    }

    /// A default step's retry block, `retry.<step>`: a plan with a journey has none.
    static func retryBlock(_ step: Step) -> PlanPath {
        PlanPath("retry.\(step.name)")
    }

    /// Every fixed path above, for the test that ties them to the key table.
    static let all: [PlanPath] =
        [
            target, respondents, rate, ramp, grace, answers, data, dataOrder, connections, proxy, cookies, thresholds, apiLogin,
            apiLoginBody,
            apiCapture, apiSubmitBody, retryBudget, retryBudgetMin, builtinAPI, builtinLogin, builtinQuestions, builtinQuestionsFile,
            builtinTLS, builtinSurvey, tlsCAFile, tlsClientCert, tlsClientKey, tlsMinVersion,
        ] + builtinConnectionFaultRates
}

extension PlanDecoder {
    /// The entry of a top-level key, when the plan gives it.
    func seen(_ path: PlanPath) -> PlanEntry? {
        seen[path.text]
    }
}
