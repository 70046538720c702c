import SurveyEngine
import SurveyJourney
import SurveyWire

/// Checks between keys, run once every key is read: each names the key to change, at its place.
extension PlanDecoder {
    mutating func check(_ plan: inout Plan, root: SourceLocation) {
        checkLoad(plan)
        checkJourney(&plan)
        checkAnswersFromSurvey(plan)
        checkRetry(&plan)
        checkBuiltin(plan)
        checkBuiltinSessions(plan)
        noteUnusedBuiltin(&plan)
        noteUnsharedConnections(&plan)
        checkProxy(&plan)
        checkTLS(&plan, root: root)
        checkTemplates(&plan)
        checkThresholdScopes(plan)
    }

    /// One load model: `respondents` (closed) or `rate`/`ramp` (open), with what each needs.
    private mutating func checkLoad(_ plan: Plan) {
        if let grace = seen(.grace), plan.run.duration == nil {
            error("'grace' needs 'duration': it is how long attempts in flight may go on once the duration expires", at: grace.keyLocation)
        }
        let rate = seen(.rate)
        let ramp = seen(.ramp)
        guard rate != nil || ramp != nil else { return }
        if let respondents = seen(.respondents) {
            error(
                "'respondents' belongs to the closed model, but this plan sets '\(rate != nil ? "rate" : "ramp")' (the open model); remove one",
                at: respondents.keyLocation)
            return
        }
        guard case .open(let parsedRate, let stages) = plan.run.load else { return }
        if let rate, parsedRate != nil, plan.run.duration == nil, ramp == nil {
            error("a plan with 'rate' needs 'duration': how long new respondents keep arriving", at: rate.keyLocation)
        }
        if let ramp, rate == nil, stages.isEmpty {
            error("'ramp' needs at least one stage such as '- 30s: 50/s'", at: ramp.keyLocation)
        }
    }

    /// A delay cap below the first delay; the budget's floor without a budget.
    private mutating func checkRetry(_ plan: inout Plan) {
        let declared = plan.run.declaredJourney != nil
        for step in plan.run.declaredJourney?.names ?? Journey.defaultSteps {
            let backoff = plan.run.retry[step].backoff
            let (initialPath, maxPath) = (
                PlanPath.retry(step, "initial", declared: declared), PlanPath.retry(step, "max", declared: declared)
            )
            guard let initial = seen(initialPath), backoff.initial > backoff.max else { continue }
            if seen(maxPath) == nil {
                plan.run.retry[step].backoff.max = backoff.initial
            } else {
                error(
                    "'\(initialPath.text)' (\(backoff.initial.compactDescription)) is more than '\(maxPath.text)' "
                        + "(\(backoff.max.compactDescription))",
                    at: initial.value.location)
            }
        }
        if let minimum = seen(.retryBudgetMin), seen(.retryBudget) == nil {
            error("'retry.budget_min' needs 'retry.budget' (the share of calls that may be retried)", at: minimum.keyLocation)
        }
    }

    /// One source of questions, fault rates that fit in 100%, and an answer for every question.
    private mutating func checkBuiltin(_ plan: Plan) {
        if let questions = seen(.builtinQuestions), seen(.builtinQuestionsFile) != nil {
            error("give either 'builtin.questions' or 'builtin.questions_file', not both", at: questions.keyLocation)
        }
        if plan.builtin.survey == .typed, let survey = seen(.builtinSurvey) {
            if plan.builtin.api == .jsonRPC {
                error(
                    "'builtin.survey: typed' goes with 'builtin.api: contract', 'pages', 'one_post' or 'html', not 'jsonrpc'",
                    at: survey.value.location)
            }
            for path in [PlanPath.builtinQuestions, .builtinQuestionsFile] {
                if let given = seen(path) {
                    error(
                        "'\(path.text)' goes with 'builtin.survey: plain': the typed survey has questions of its own", at: given.keyLocation
                    )
                }
            }
        }
        let faults = plan.builtin.faults
        let connectionFaults =
            faults.errorRate + faults.resetRate + faults.malformedRate + faults.slowRate + faults.hangRate + faults.goAwayRate
        if connectionFaults > 1.000_000_1, let last = PlanPath.builtinConnectionFaultRates.compactMap({ seen($0) }).last {
            error("the builtin fault rates other than fail_rate add up to more than 100%", at: last.keyLocation)
        }
        if crossChecks, plan.target != .builtin, plan.run.answers.fallback == nil, plan.run.answers.fallbackPicker == nil,
            let answers = seen(.answers)
        {
            // A remote survey's questions are not known before the run.
            warning(
                "'answers' has no \"*\" answer: a question without its own answer is skipped (never sent; counted in answers.skipped)",
                at: answers.keyLocation)
        }
        if crossChecks, plan.target == .builtin, case .builtin(let count) = plan.builtin.questions, let data = plan.run.data,
            let key = seen(.data)
        {
            // A column for a question the builtin server does not ask is never used.
            for id in data.answerColumns.keys.sorted(by: { $0.text < $1.text }) where !Self.builtinAsks(id, count, plan.builtin) {
                warning(
                    "the data file's column 'answer.\(id)' answers question \(id), but the builtin server asks questions \(Self.builtinRange(count, plan.builtin)): "
                        + "it is never used", at: key.value.location)
            }
        }
        if crossChecks, plan.target == .builtin, case .builtin(let count) = plan.builtin.questions, let answers = seen(.answers) {
            for entry in entries(answers.value, at: "answers")
            where entry.key != "*" && !Self.builtinAsks(QuestionID(entry.key), count, plan.builtin) {
                warning(
                    "'answers.\(entry.key)' answers question \(entry.key), but the builtin server asks questions \(Self.builtinRange(count, plan.builtin)): "
                        + "it is never used", at: entry.keyLocation)
            }
            // The typed survey's optional questions may go unanswered: only its required ones need an answer.
            let typed = plan.builtin.survey == .typed
            let missing = plan.unanswerable(among: typed ? TypedSurvey.standard.requiredIDs : Self.builtinIDs(count, plan.builtin))
            if !missing.isEmpty {
                let list = missing.prefix(8).map(String.init).joined(separator: ", ") + (missing.count > 8 ? ", …" : "")
                let whose = typed ? "required by the builtin server's typed survey" : "of the builtin server's \(count)"
                error(
                    "no answer for question\(missing.count == 1 ? "" : "s") \(list) \(whose), and no \"*\" answer for the rest",
                    at: answers.keyLocation)
            }
        }
    }

    /// Whether the builtin server, asking questions 1 to `count` (or its typed survey's), asks
    /// question `id`.
    private static func builtinAsks(_ id: QuestionID, _ count: Int, _ builtin: ReferenceServerConfiguration) -> Bool {
        builtinIDs(count, builtin).contains(id)
    }

    /// The ids of the builtin server's questions: 1…n, or `q1`…`qn` for the shapes that give
    /// string ids, or the typed survey's.
    private static func builtinIDs(_ count: Int, _ builtin: ReferenceServerConfiguration) -> [QuestionID] {
        if builtin.survey == .typed { return TypedSurvey.standard.questions.map { QuestionID($0.id) } }
        return (1...count).map { [.pages, .onePost, .html].contains(builtin.api) ? QuestionID("q\($0)") : QuestionID($0) }
    }

    /// The builtin server's questions named as a plan's messages name them.
    private static func builtinRange(_ count: Int, _ builtin: ReferenceServerConfiguration) -> String {
        if builtin.survey == .typed { return "q1–q\(TypedSurvey.standard.questions.count)" }
        return [.pages, .onePost, .html].contains(builtin.api) ? "q1–q\(count)" : "1–\(count)"
    }

    /// A plan and the builtin server that disagree about sessions: every call would fail the
    /// same way, so `validate` says why (a warning: the plan may be rehearsing exactly that).
    /// A declared journey names its own calls: it is left to the run.
    /// A `builtin` block beside another target (`--target`, or a plan kept for both) is not
    /// used: `validate` says so in a note, not a warning, since it is often on purpose.
    func noteUnusedBuiltin(_ plan: inout Plan) {
        guard plan.target != .builtin, let first = seen.keys.filter({ $0.hasPrefix("builtin.") }).sorted().first else { return }
        let key = first.split(separator: ".").prefix(2).joined(separator: ".")
        plan.notes.append("'builtin' ('\(key)'…) is not used: the target is \(plan.shownTarget), not the builtin server")
    }

    /// `connections: shared` where only HTTP/1.1 will be spoken (`http: 1.1`, or plain http
    /// without `http: 2`): HTTP/1.1 cannot share a connection between requests in flight, so the
    /// key changes nothing — a note, since a plan may be kept for targets of both kinds.
    func noteUnsharedConnections(_ plan: inout Plan) {
        guard plan.run.client.sharing == .shared, seen(.connections) != nil else { return }
        let secure: Bool
        switch plan.target {
        case .builtin: secure = plan.builtin.tls != .off
        case .url(let url): secure = url.scheme == .https
        }
        let http1Only = plan.run.client.version == .http1 || (!secure && plan.run.client.version == .auto)
        guard http1Only else { return }
        let why = plan.run.client.version == .http1 ? "the plan speaks HTTP/1.1 only" : "plain http speaks HTTP/1.1 unless 'http: 2'"
        plan.notes.append(
            "'connections: shared' changes nothing here: \(why), and HTTP/1.1 cannot carry two requests on one connection at once")
    }

    private mutating func checkBuiltinSessions(_ plan: Plan) {
        if plan.builtin.api != .contract, let key = seen(.builtinAPI) {
            if plan.builtin.login, let login = seen(.builtinLogin) {
                error(
                    "'builtin.login' goes with 'builtin.api: contract': the \(plan.builtin.api.rawValue) API has sessions of its own",
                    at: login.keyLocation)
            } else if plan.target == .builtin, plan.run.declaredJourney == nil {
                error(
                    "'builtin.api: \(plan.builtin.api.rawValue)' needs a 'journey': the default journey speaks the survey contract's API",
                    at: key.value.location)
            }
        }
        guard crossChecks, plan.target == .builtin, plan.run.declaredJourney == nil else { return }
        let login = plan.run.api.login
        if plan.builtin.login, login == nil, let key = seen(.builtinLogin) {
            warning(
                "'builtin.login' is on but the plan has no 'api.login': the builtin server answers 401 to every survey call without a "
                    + "session (add 'api.login: POST /session', capture '$.token' and send it as 'Authorization: Bearer ${session.token}')",
                at: key.keyLocation)
        }
        if !plan.builtin.login, login != nil, let key = seen(.apiLogin) {
            warning(
                "'api.login' logs in, but the builtin server has no sessions: its POST /session is a 404 and every respondent would be "
                    + "abandoned (set 'builtin.login: true')",
                at: key.keyLocation)
        }
        guard plan.builtin.login else { return }
        if let login, login != SurveyAPI.Call(method: "POST", path: "/session"), let key = seen(.apiLogin) {
            // A value from the environment is shown as written, never as its value.
            let shown = environmentText["api.login"]?.first?.display ?? login.description
            warning(
                "the builtin server's login is POST /session, not \(shown): every respondent would be abandoned", at: key.value.location)
        }
        if !plan.run.cookies, let key = seen(.cookies) {
            warning(
                "'cookies: false' with 'builtin.login': the builtin server answers 401 to a call without its session cookie",
                at: key.value.location)
        }
    }

    /// The TLS settings of an https target (or of the builtin server's https), with their files
    /// read now into the engine's configuration: a file that cannot be read or is no file, a CA
    /// file that holds no certificate, a key that does not fit its certificate, or no OpenSSL on
    /// the machine are errors before anything is sent, at the key to change.
    private mutating func checkTLS(_ plan: inout Plan, root: SourceLocation) {
        switch plan.target {
        case .url(let url) where url.scheme == .https: break
        case .builtin where plan.builtin.tls != .off: break
        default: return
        }
        // Each file written in the plan is the plan file's directory's, as `data:` is.
        var files = plan.tlsFiles
        for (key, path) in [(PlanPath.tlsCAFile, \TLSFiles.caFile), (.tlsClientCert, \.clientCertificate), (.tlsClientKey, \.clientKey)] {
            if let written = files[keyPath: path], case .scalar(let s)? = seen(key)?.value {
                files[keyPath: path] = resolvedPath(written, of: s)
            }
        }
        do throws(TLSSetupError) {
            plan.run.client.tls = try files.read(into: plan.run.client.tls)
            _ = try TLSClientContext(plan.run.client.tls)
        } catch {
            let error = files.naming(error)
            let key: PlanPath =
                switch error.subject {
                case "CA file": .tlsCAFile
                case "client certificate": .tlsClientCert
                case "client key": .tlsClientKey
                case "minimum TLS version": .tlsMinVersion
                default: plan.target == .builtin ? .builtinTLS : .target
                }
            let message = Plan.redacting(error.description, paths: Plan.pathKeys.compactMap { environmentText[$0]?.first })
            self.error(message, at: seen(key)?.value.location ?? seen(.target)?.value.location ?? root)
        }
    }
}
