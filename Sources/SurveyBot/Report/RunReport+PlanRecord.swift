import SurveyEngine

extension RunReport.PlanRecord {
    /// The plan as shown (`Plan+Display.swift`): values from the environment by their
    /// variables' names, query values `***`, header values never.
    init(_ plan: Plan) {
        name = plan.name
        target = plan.shownTarget
        switch plan.run.load {
        case .closed(let respondents): load = "closed: \(respondents) respondents"
        case .open(let rate, let ramp):
            var text = "open"
            if let rate { text += ": \(rate)" }
            if !ramp.isEmpty { text += ", ramp " + ramp.map { "\($0.duration.compactDescription) → \($0.target)" }.joined(separator: ", ") }
            load = text
        }
        concurrency = plan.run.concurrency
        duration = plan.run.duration?.compactDescription
        grace = plan.run.duration == nil ? nil : plan.run.effectiveGrace.compactDescription
        timeout = plan.run.client.timeout.compactDescription
        connectTimeout = (plan.run.client.connectTimeout ?? plan.run.client.timeout).compactDescription
        think = plan.run.think.description
        pace = plan.run.pace?.compactDescription
        cookies = plan.run.cookies ? nil : false
        proxy = plan.proxyRoute.shown
        order = plan.run.order.rawValue
        let journey = plan.run.journey.names
        // A declared step also says when it runs, and what it expects: what a reader of its
        // figures (a `page_limit`, a `rejected`) needs to know.
        api = Dictionary(
            uniqueKeysWithValues: journey.map { step in
                guard let declared = plan.run.declaredJourney?.steps.first(where: { $0.step == step }) else {
                    return (step.name, plan.shownCall(step))
                }
                var text = plan.shownCall(step)
                if declared.runs != .once { text += ", \(declared.runs)" }
                if declared.runs.pages { text += " (at most \(declared.pages))" }
                if declared.always { text += ", always" }
                if let expect = declared.expect {
                    let checks = (expect.statuses.map { ["status \($0)"] } ?? []) + expect.checks.map(\.description)
                    // A check with a value from the environment is counted, never shown.
                    let fromEnvironment = plan.environmentText.keys.contains { $0.hasPrefix("journey.\(step.name).expect") }
                    let count = "\(checks.count) check\(checks.count == 1 ? "" : "s")"
                    text += fromEnvironment ? ", expect \(count)" : ", expect " + checks.joined(separator: "; ")
                }
                return (step.name, text)
            })
        // Header values are credentials more often than not: never written.
        headers = Dictionary(plan.run.api.headers.map { ($0.name, RunReport.redacted) }, uniquingKeysWith: { a, _ in a })
        answers = plan.report.includeAnswers ? plan.shownAnswers : nil
        func describe(_ policy: RetryPolicy) -> String {
            var text = "\(policy.attempts) attempts, \(policy.backoff.strategy.rawValue)"
            if policy.backoff.strategy != .none {
                text += " \(policy.backoff.initial.compactDescription)..\(policy.backoff.max.compactDescription)"
                if policy.backoff.strategy == .exponential { text += " ×\(policy.backoff.multiplier)" }
            }
            text += ", jitter \(policy.jitter.rawValue), on \(policy.retryOn)"
            return text
        }
        var retry = Dictionary(uniqueKeysWithValues: journey.map { ($0.name, describe(plan.run.retry[$0])) })
        if let budget = plan.run.retry.budget {
            retry["budget"] = "\(Readable.percent(budget.ratio)) of calls + \(budget.minimum)"
        }
        self.retry = retry
        if let data = plan.run.data, let file = plan.dataFile {
            self.data = "\(file.shownPath): \(data.totalRows) row\(data.totalRows == 1 ? "" : "s"), \(data.order.rawValue)"
        }
        if plan.target == .builtin {
            let questions: String
            switch plan.builtin.questions {
            case .builtin(let count):
                questions =
                    plan.builtin.survey == .typed ? "\(TypedSurvey.standard.questions.count) typed questions" : "\(count) questions"
            case .file(let path): questions = "questions from \(plan.shownPath(path))"
            case .raw(let path): questions = "questions body from \(plan.shownPath(path)), unchecked"
            }
            let faults = plan.builtin.faults
            var parts = [questions]
            if faults.failRate > 0 { parts.append("fail \(Readable.percent(faults.failRate))") }
            if faults.errorRate > 0 { parts.append("5xx \(Readable.percent(faults.errorRate))") }
            if faults.coldStart > 0 { parts.append("cold start \(faults.coldStart)") }
            if !faults.latency.isZero { parts.append("latency \(faults.latency)") }
            if faults.resetRate > 0 { parts.append("reset \(Readable.percent(faults.resetRate))") }
            if faults.malformedRate > 0 { parts.append("malformed \(Readable.percent(faults.malformedRate))") }
            if faults.slowRate > 0 {
                parts.append("slow \(Readable.percent(faults.slowRate)) at \(faults.trickleInterval.compactDescription)")
            }
            if faults.hangRate > 0 { parts.append("hang \(Readable.percent(faults.hangRate))") }
            if faults.goAwayRate > 0 { parts.append("goaway \(Readable.percent(faults.goAwayRate))") }
            if faults.windowSize != ServerFaults().windowSize || faults.windowDelay != .zero {
                parts.append("window \(faults.windowSize) B every \(faults.windowDelay.compactDescription)")
            }
            if plan.builtin.http2 || plan.run.client.version == .http2 { parts.append("h2") }
            if plan.builtin.login { parts.append("login") }
            if plan.builtin.api != .contract { parts.append("api \(plan.builtin.api.rawValue)") }
            builtin = parts.joined(separator: ", ")
        } else {
            builtin = nil
        }
        insecure = !plan.run.client.tls.verify
    }
}
