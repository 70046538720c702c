import SurveyEngine
import SurveyJourney

/// The report's `plan_digest`: a SHA-256 of the plan as run, so that `merge` can tell the shards
/// of one plan from reports of another.
///
/// What is hashed is the plan's canonical form: one `key: value` line for every key of the plan
/// format (`PlanKeys.all`), defaults included, sorted by key, each value as the report shows
/// it (`Plan+Display.swift`) — a part from the environment as `${NAME}`, query values as `***`,
/// header names without their values — so that two runs of one plan with different secrets
/// share a digest, and no secret can be guessed back from it. Numbers, durations and rates are
/// hashed as read: another value is another plan. Left out: what says how or where a run goes
/// rather than what it does — the shard (every shard of a run shares the digest), the threads,
/// and the report settings.
extension Plan {
    /// Keys added after digests were first written, digested only when a plan gives them: a
    /// plan without them keeps the digest it had, so that `diff` across an upgrade does not
    /// call one plan two.
    static let digestedWhenGiven: Set<String> = [
        "journey", "builtin.api", "http", "connections", "builtin.http2", "builtin.goaway_rate", "builtin.window", "builtin.window_delay",
    ]

    /// The keys of the plan format the digest leaves out on purpose.
    static let digestLeavesOut: Set<String> = [
        "engine.threads", "report.formats", "report.dir", "report.include_answers", "report.interval", "report.lag_limit",
    ]

    /// `sha256:` and the hexadecimal SHA-256 of `canonicalText`.
    var digest: String {
        "sha256:" + SHA256.hex(of: Array(canonicalText.utf8))
    }

    /// The canonical form: `key: value` lines, sorted by key, each ending in a newline.
    var canonicalText: String {
        canonicalEntries.map { "\($0.key): \($0.value)\n" }.joined()
    }

    /// Every digested key of the plan format with its value as shown, sorted by key.
    var canonicalEntries: [(key: String, value: String)] {
        var entries: [String: String] = [
            "name": name, "target": shownTarget, "concurrency": String(run.concurrency),
            "duration": run.duration?.compactDescription ?? "none", "grace": run.grace?.compactDescription ?? "timeout",
            "timeout": run.client.timeout.compactDescription,
            "connect_timeout": run.client.connectTimeout?.compactDescription ?? "timeout", "max_body": String(run.client.maxBodyBytes),
            "think": run.think.description, "pace": run.pace?.compactDescription ?? "none", "cookies": String(run.cookies),
            "order": run.order.rawValue, "seed": run.seed.map(String.init) ?? "random",
            // Header values are never shown, so never digested: names only, in the plan's order.
            "api.headers": "[" + run.api.headers.map(\.name).joined(separator: ", ") + "]",
            "answers": "{"
                + shownAnswers.sorted { $0.key < $1.key }.map { "\($0.key): [\($0.value.joined(separator: ", "))]" }
                .joined(separator: ", ") + "}",
            "retry.budget": run.retry.budget.map { "\($0.ratio)" } ?? "none",
            "retry.budget_min": run.retry.budget.map { String($0.minimum) } ?? "none",
            "thresholds": "[" + thresholds.map(\.planText).joined(separator: ", ") + "]",
        ]
        switch run.load {
        case .closed(let respondents):
            entries["respondents"] = String(respondents)
            entries["rate"] = "none"
            entries["ramp"] = "none"
        case .open(let rate, let ramp):
            entries["respondents"] = "none"
            entries["rate"] = rate?.description ?? "none"
            entries["ramp"] = "[" + ramp.map { "\($0.duration.compactDescription): \($0.target)" }.joined(separator: ", ") + "]"
        }
        for step in Journey.defaultSteps {
            for (key, value) in Self.canonical(run.retry[step]) { entries["retry.\(step.name).\(key)"] = value }
        }
        if run.declaredJourney != nil { entries["journey"] = canonicalJourney }
        // The data feed is digested by its path as shown and its content's hash: other rows are
        // another run; values are never digested one by one.
        entries["data"] = dataFile.map { "\($0.shownPath) \($0.digest)" } ?? "none"
        entries["data_order"] = dataOrder.rawValue
        entries["api.questions_list"] = shownText("api.questions_list", run.api.questionsList.text)
        entries["api.question_id"] = shownText("api.question_id", run.api.questionID.text)
        entries["api.question_text"] = shownText("api.question_text", run.api.questionText.text)
        entries["api.submit_body"] = run.api.submitBody.map { shownText("api.submit_body", $0) } ?? "none"
        for step in Journey.defaultSteps { entries["api.\(step.name)"] = run.api.call(step) == nil ? "none" : shownCall(step) }
        entries["api.login_body"] = run.api.loginBody.map { shownText("api.login_body", $0) } ?? "none"
        entries["api.capture"] = "[" + run.api.captures.map { "\($0.name): \($0.source)" }.joined(separator: ", ") + "]"
        let tls = run.client.tls
        entries["tls.verify"] = String(tls.verify)
        entries["tls.ca_file"] = tlsFiles.caFile.map(shownPath) ?? "none"
        entries["tls.client_cert"] = tlsFiles.clientCertificate.map(shownPath) ?? "none"
        entries["tls.client_key"] = tlsFiles.clientKey.map(shownPath) ?? "none"
        entries["tls.server_name"] = environmentText["tls.server_name"]?.first?.display ?? tls.serverName ?? "none"
        entries["tls.min_version"] = tls.minimumVersion.rawValue
        switch builtin.questions {
        case .builtin(let count):
            entries["builtin.questions"] = String(count)
            entries["builtin.questions_file"] = "none"
        case .file(let path):
            entries["builtin.questions"] = "file"
            entries["builtin.questions_file"] = shownPath(path)
        case .raw(let path):
            entries["builtin.questions"] = "raw"
            entries["builtin.questions_file"] = shownPath(path)
        }
        let faults = builtin.faults
        entries["builtin.fail_rate"] = "\(faults.failRate)"
        entries["builtin.error_rate"] = "\(faults.errorRate)"
        entries["builtin.cold_start"] = String(faults.coldStart)
        entries["builtin.latency"] = faults.latency.description
        entries["builtin.reset_rate"] = "\(faults.resetRate)"
        entries["builtin.malformed_rate"] = "\(faults.malformedRate)"
        entries["builtin.slow_rate"] = "\(faults.slowRate)"
        entries["builtin.trickle"] = faults.trickleInterval.compactDescription
        entries["builtin.hang_rate"] = "\(faults.hangRate)"
        // Written only when set, so that the digests of plans from before HTTP/2 stay the same.
        if faults.goAwayRate > 0 { entries["builtin.goaway_rate"] = "\(faults.goAwayRate)" }
        if faults.windowSize != ServerFaults().windowSize { entries["builtin.window"] = String(faults.windowSize) }
        if faults.windowDelay != .zero { entries["builtin.window_delay"] = faults.windowDelay.compactDescription }
        if builtin.http2 { entries["builtin.http2"] = "true" }
        entries["builtin.tls"] = builtin.tls == .off ? "false" : "true"
        entries["builtin.login"] = String(builtin.login)
        if builtin.api != .contract { entries["builtin.api"] = builtin.api.rawValue }
        if run.client.version != .auto { entries["http"] = run.client.version.rawValue }
        if run.client.sharing != .perRequest { entries["connections"] = run.client.sharing.rawValue }
        return entries.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }

    /// How a step per survey lays out its answers, its template as shown.
    private static func canonical(_ answers: JourneyStep.AnswersShape, shown: (String, String) -> String) -> String {
        switch answers {
        case .object(let key): "object " + shown("answers_key", key)
        case .list(let item): "list " + shown("answers_item", item)
        }
    }

    /// A step's body as shown: `${NAME}` for each part from the environment, a form's field by
    /// field.
    private func shownBody(of step: JourneyStep, _ body: String, base: String) -> String {
        switch step.bodyFormat {
        case .json: return shownText("\(base).body", body)
        case .text: return shownText("\(base).text", body)
        case .form:
            let fields = environmentText.filter { $0.key.hasPrefix("\(base).form.") }.values.flatMap { $0 }
            return Self.redacting(body, paths: fields)
        }
    }

    /// A retry policy's keys (`attempts`, `backoff`, …) with their values.
    private static func canonical(_ policy: RetryPolicy) -> [(String, String)] {
        [
            ("attempts", String(policy.attempts)), ("backoff", policy.backoff.strategy.rawValue),
            ("initial", policy.backoff.initial.compactDescription), ("max", policy.backoff.max.compactDescription),
            ("multiplier", "\(policy.backoff.multiplier)"), ("jitter", policy.jitter.rawValue), ("on", policy.retryOn.description),
        ]
    }

    /// The declared journey, step by step, each key as shown (header values never).
    private var canonicalJourney: String {
        guard let journey = run.declaredJourney else { return "" }
        let steps = journey.steps.map { step in
            let base = "journey.\(step.step.name)"
            var keys = [
                "request: \(shownCall(step.step))", "runs: \(step.runs.rawValue)",
                "headers: [" + step.headers.map(\.name).joined(separator: ", ") + "]",
                "body: " + (step.body.map { shownBody(of: step, $0, base: base) } ?? "none"), "body_format: \(step.bodyFormat)",
                "timeout: " + (step.timeout?.compactDescription ?? "run"), "think: " + (step.think?.description ?? "run"),
                "questions: "
                    + (step.questions.map { $0.pattern.map { "regex \($0)" } ?? "\($0.list.text) \($0.id.text) \($0.text.text)" }
                        ?? "none"),
                "capture: [" + step.captures.map { "\($0.name): \($0.source)" }.joined(separator: ", ") + "]",
                "expect: "
                    + (step.expect.map { (($0.statuses.map { ["status \($0)"] } ?? []) + $0.checks.map(\.description)).description }
                        ?? "none"),
                "answers: " + Self.canonical(step.answers, shown: { shownText("\(base).\($0)", $1) }),
                "idempotent: \(step.idempotent)", "always: \(step.always)",
            ]
            // Keys added later show only where given, so that digests of plans without them stay as they were.
            if step.runs == .perPage { keys.append("pages: \(step.pages)") }
            if let fields = step.formFields { keys.append("form_fields: \(fields)") }
            if let value = step.answersValue { keys.append("answers_value: " + shownText("\(base).answers_value", value)) }
            keys += Self.canonical(run.retry[step.step]).map { "retry.\($0.0): \($0.1)" }
            return "\(step.step.name): {" + keys.joined(separator: ", ") + "}"
        }
        return "[" + steps.joined(separator: ", ") + "]"
    }
}
