import SurveyEngine

/// The keys of one step of `journey`, as `PlanKey`s whose paths name the step
/// (`journey.open.request`): the decoder walks a step's block with them, unknown keys are
/// suggested from them, and the docs' table of step keys is made from them (`documented`).
enum JourneyKeys {
    /// The keys of `step`, the journey's `index`-th, writing into that step of
    /// `Plan.run.declaredJourney` and into the run's retry policy for it.
    static func keys(_ step: Step, at index: Int) -> [PlanKey] {
        let base = "journey.\(step.name)"
        // The kinds of `runs` are the engine's registry's (`JourneyStep.Runs.allCases`), named and said once there.
        let kinds = JourneyStep.Runs.allCases.map { "`\($0.rawValue)`" }
        let runsKinds = (
            names: kinds.count > 1 ? kinds.dropLast().joined(separator: ", ") + " or " + kinds[kinds.count - 1] : kinds.joined(),
            docs: JourneyStep.Runs.allCases.map { "`\($0.rawValue)`: \($0.doc)" }.joined(separator: "; ")
        )
        return [
            .custom(
                "\(base).request", kind: "`METHOD /path` or `/path`", default: "none: every step has one",
                "the step's method and path (`GET` without a method), a template: `${row.…}`, `${respondent.id}`, "
                    + "`${session.…}` of the steps before it, and in a step per question `${question.id}` and `${answer}`",
                decode: { decoder, entry, plan in
                    if let call = decoder.read(entry, "\(base).request", .call(defaultMethod: "GET")) {
                        update(&plan, index) { $0.call = call }
                    }
                }),
            .custom(
                "\(base).runs", kind: runsKinds.names, default: "`once`",
                runsKinds.docs
                    + ". A journey has one step that sends the answers at most, after the step that reads the (first) `questions`",
                decode: { decoder, entry, plan in
                    if let runs = decoder.read(entry, "\(base).runs", .word) as JourneyStep.Runs? {
                        update(&plan, index) { $0.runs = runs }
                    }
                }),
            .custom(
                "\(base).headers", .entries, kind: "block of `Name: value`", default: "none",
                "header fields of this step, sent after `api.headers`; values are templates like the `request`'s, and never shown",
                decode: { decoder, entry, plan in
                    let headers = decoder.headers(entry, at: "\(base).headers")
                    update(&plan, index) { $0.headers = headers }
                }),
            .custom(
                "\(base).body", kind: "text", default: "none (a step per question: the contract's `{\"id\": 1, \"answer\": \"red\"}`)",
                "the step's JSON body, a template like `api.submit_body`: each variable goes in as a JSON value, so that no value "
                    + "breaks the JSON",
                decode: { decoder, entry, plan in
                    guard let s = decoder.scalar(entry.value, keyLocation: entry.keyLocation, path: "\(base).body", expected: "a JSON body")
                    else { return }
                    update(&plan, index) { $0.body = s.text }
                }),
            .custom(
                "\(base).form", .entries, kind: "block of `name: value`", default: "none",
                "an HTML form's fields as the body, in order, sent as `application/x-www-form-urlencoded`: each name and value "
                    + "percent-encoded (a space as `+`), variables too, so that no value adds a field. `\"*\": ${session.NAME}` "
                    + "puts first the fields of a form captured whole (`form *`), but those set again here or by an answer; a "
                    + "step that sends answers sends them after the fields. Instead of `body`",
                decode: { decoder, entry, plan in
                    guard let form = decoder.readForm(entry, "\(base).form") else { return }
                    update(&plan, index) {
                        $0.body = form.body
                        $0.formFields = form.fields
                        $0.bodyFormat = .form
                    }
                }),
            .custom(
                "\(base).text", kind: "text", default: "none",
                "a body sent as written, variables too (nothing is escaped), as `content_type`. Instead of `body`",
                decode: { decoder, entry, plan in
                    guard let s = decoder.scalar(entry.value, keyLocation: entry.keyLocation, path: "\(base).text", expected: "a body")
                    else { return }
                    update(&plan, index) {
                        $0.body = s.text
                        if case .json = $0.bodyFormat { $0.bodyFormat = .text(contentType: "text/plain; charset=utf-8") }
                    }
                }),
            .custom(
                "\(base).content_type", kind: "text", default: "`text/plain; charset=utf-8`",
                "with `text`: the body's `Content-Type` (`application/xml`, `application/json-rpc`)",
                decode: { decoder, entry, plan in
                    guard let type = decoder.read(entry, "\(base).content_type", .text) else { return }
                    do throws(HTTPSyntaxError) {
                        try HTTPSyntax.checkFieldValue(type, name: "Content-Type")
                        update(&plan, index) { $0.bodyFormat = .text(contentType: type) }
                    } catch {
                        decoder.error(error.description, at: entry.value.location)
                    }
                }),
            .custom(
                "\(base).timeout", kind: "duration > 0", default: "the `timeout`",
                "per attempt of this step, instead of the run's `timeout`: a slow export, a quick health check",
                decode: { decoder, entry, plan in
                    if let timeout = decoder.read(entry, "\(base).timeout", .positiveDuration("timeout")) {
                        update(&plan, index) { $0.timeout = timeout }
                    }
                }),
            .custom(
                "\(base).think", kind: "range or distribution", default: "the `think` for a step that sends answers; none",
                "this step's think time, as `think` takes it: before each answer of a step that sends answers, instead of the "
                    + "run's; before the call of a step run once (reading a page before posting it), which has none without it",
                decode: { decoder, entry, plan in
                    if let think = decoder.read(entry, "\(base).think", .thinkTime) { update(&plan, index) { $0.think = think } }
                }),
            .custom(
                "\(base).pages", kind: "integer 1–10000", default: "\(JourneyStep.defaultPages)",
                "for a page loop: how many pages it posts at most. A respondent still given questions after the last is "
                    + "abandoned (`page_limit`): a survey that never ends, or a page the server keeps sending back",
                decode: { decoder, entry, plan in
                    if let pages = decoder.read(entry, "\(base).pages", .integer(in: 1...10_000, "pages")) {
                        update(&plan, index) { $0.pages = pages }
                    }
                }),
            .custom(
                "\(base).answers_key", kind: "text", default: "`${question.id}`",
                "for a step per survey or per page: `${answers}` is a JSON object of every answer, each under this key, a "
                    + "template filled in per question (LimeSurvey's `123456X1X${question.id}`); with a `form`, each answer is a "
                    + "field of this name, after the form's fields",
                decode: { decoder, entry, plan in
                    if let key = decoder.read(entry, "\(base).answers_key", .text) {
                        update(&plan, index) { $0.answers = .object(key: key) }
                    }
                }),
            .custom(
                "\(base).answers_value", kind: "text", default: "`${answer}`",
                "for a step per survey or per page whose `${answers}` is an object: each answer's value, a JSON template filled "
                    + "in per question, instead of the answer as a JSON string (Qualtrics' choices: `{${answer}: {\"selected\": true}}`)",
                decode: { decoder, entry, plan in
                    if let value = decoder.read(entry, "\(base).answers_value", .text) {
                        update(&plan, index) { $0.answersValue = value }
                    }
                }),
            .custom(
                "\(base).answers_item", kind: "text", default: "none",
                "for a step per survey or per page: `${answers}` is a JSON list instead, of this template filled in per question "
                    + "(`{\"question_id\": ${question.id}, \"answers\": [{\"text\": ${answer}}]}`)",
                decode: { decoder, entry, plan in
                    if let item = decoder.read(entry, "\(base).answers_item", .text) {
                        update(&plan, index) { $0.answers = .list(item: item) }
                    }
                }),
            .custom(
                "\(base).questions", kind: "JSON path, or `regex PATTERN`", default: "none",
                "where this step's 2xx response lists the survey's questions (`$` for a top-level list; `$.survey.groups[*].questions[*]` "
                    + "across lists), as `api.questions_list` reads them; or, in an HTML page, every match of a regular expression, "
                    + "its first group the question's id and its second, if any, the text. One step reads the questions, and a "
                    + "page loop the next pages'; a response without them is `malformed_response`, and the respondent is abandoned "
                    + "(`questions_unavailable`) — but a page loop's response without questions is its last",
                decode: { decoder, entry, plan in
                    guard
                        let s = decoder.scalar(
                            entry.value, keyLocation: entry.keyLocation, path: "\(base).questions", expected: "a JSON path")
                    else { return }
                    if s.text.hasPrefix("regex ") {
                        let text = s.text.dropFirst(6)
                        let pattern = text.trimmingCharacters(in: .whitespaces)
                        do throws(TextPattern.Invalid) {
                            let compiled = try TextPattern(pattern)
                            updateShape(&plan, index) { $0.pattern = compiled }
                        } catch {
                            // At the pattern, past `regex ` (and the quote).
                            var at = s.location
                            at.column += (s.isQuoted ? 1 : 0) + 6 + text.prefix { $0 == " " }.count
                            decoder.error("\(error.reason) for '\(base).questions'", at: at)
                        }
                    } else if let path = decoder.read(entry, "\(base).questions", .jsonPath) {
                        updateShape(&plan, index) { $0.list = path }
                    }
                }),
            .custom(
                "\(base).question_id", kind: "JSON path", default: "`id`",
                "with `questions`: where each question holds its id, an integer or a string",
                decode: { decoder, entry, plan in
                    if let path = decoder.read(entry, "\(base).question_id", .jsonPath) { updateShape(&plan, index) { $0.id = path } }
                }),
            .custom(
                "\(base).question_text", kind: "JSON path", default: "`question`",
                "with `questions`: where each question holds its text",
                decode: { decoder, entry, plan in
                    if let path = decoder.read(entry, "\(base).question_text", .jsonPath) { updateShape(&plan, index) { $0.text = path } }
                }),
            .custom(
                "\(base).capture", .entries, kind: "block of `name: SOURCE`", default: "none",
                "values taken from this step's 2xx response into `${session.name}`, for the steps after it: `$.json.path`, "
                    + "`header Name`, `cookie Name` (a cookie it sets), `regex PATTERN` (its first group, or the whole match), "
                    + "`form FIELD` (an HTML `<input>`'s value, by name), `form *` (every field of the page's form, as a browser "
                    + "sends it back, for a `form`'s `\"*\"`). A response without one is `malformed_response`, and the "
                    + "respondent is abandoned (`capture_not_found`). Captured values are secrets",
                decode: { decoder, entry, plan in
                    let captures = decoder.captures(entry, at: "\(base).capture")
                    update(&plan, index) { $0.captures = captures }
                }),
            .custom(
                "\(base).expect", kind: "list of checks", default: "a 2xx",
                "what the response must be to count as a success (below, \"Checks\"): `status == 200` or `status in [200, 404]` "
                    + "instead of any 2xx, and checks that must all hold — `$.error not exists`, `$.result.status == \"OK\"`, "
                    + "`body contains saved`, `header Content-Type matches json`. A response that fails one is `rejected`, its "
                    + "sample naming the check and what the server sent",
                decode: { decoder, entry, plan in
                    let expectation = decoder.readExpectation(entry, "\(base).expect")
                    update(&plan, index) { $0.expect = expectation }
                }),
            .custom(
                "\(base).idempotent", kind: "boolean", default: "by its method: `false` for POST and PATCH",
                "whether sending the request twice does what sending it once does. A step that is not is never retried after "
                    + "its request may have reached the server — a timeout, a connection reset or closed after the request was "
                    + "written — since the server may have stored it (counted as `retries_unsafe`); a request that never left is "
                    + "retried either way, and so is a response the policy retries (a `503`, a `rejected`)",
                decode: { decoder, entry, plan in
                    if let idempotent = decoder.read(entry, "\(base).idempotent", .boolean) {
                        update(&plan, index) { $0.idempotent = idempotent }
                    }
                }),
            .custom(
                "\(base).always", kind: "boolean", default: "`false`",
                "run this step at the end of the journey whatever happened before it — a logout, releasing a session key — "
                    + "after an abandonment too, when the captures it uses have values (never once the run has stopped); its "
                    + "failure abandons no one",
                decode: { decoder, entry, plan in
                    if let always = decoder.read(entry, "\(base).always", .boolean) { update(&plan, index) { $0.always = always } }
                }),
        ]
            + PlanKeys.retryKeys(
                step, base: "\(base).retry", defaults: PlanKeys.defaultRetry(nil),
                doc: "the step's retry policy: the keys of `retry.submit` (below), with the defaults of `retry.questions`")
    }

    /// Changes the journey's `index`-th step of `plan`.
    private static func update(_ plan: inout Plan, _ index: Int, _ change: (inout JourneyStep) -> Void) {
        guard var journey = plan.run.declaredJourney, index < journey.steps.count else { return }
        change(&journey.steps[index])
        plan.run.declaredJourney = journey
    }

    /// Changes the question shape of the `index`-th step, the survey contract's until given.
    private static func updateShape(_ plan: inout Plan, _ index: Int, _ change: (inout SurveyQuestion.Shape) -> Void) {
        update(&plan, index) { step in
            var shape = step.questions ?? .contract
            change(&shape)
            step.questions = shape
        }
    }

    /// The keys as the docs list them, for a step named `<step>`.
    static let documented = keys(Step("<step>"), at: 0)

    /// Whether `name` can name a step: a letter, then letters, digits, `_` and `-`; at most 64.
    static func isStepName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, name.unicodeScalars.count <= 64
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
        }
    }
}

extension PlanDecoder {
    /// A step's `expect`: one check, or a list of them, each read by `ResponseCheckSyntax` and
    /// wrong at its own place; one `status` line at most.
    mutating func readExpectation(_ entry: PlanEntry, _ path: String) -> ResponseExpectation? {
        guard let lines = scalarList(entry, path, expected: "checks such as '$.error not exists'") else { return nil }
        var expectation = ResponseExpectation()
        var statusLine: SourceLocation?
        for line in lines {
            do throws(ResponseCheckSyntax.Invalid) {
                switch try ResponseCheckSyntax.parse(line.text) {
                case .check(let check): expectation.checks.append(check)
                case .statuses(let statuses):
                    if let first = statusLine {
                        error("'\(path)' has one status line, and line \(first.line) is one", at: line.location)
                    }
                    statusLine = line.location
                    expectation.statuses = statuses
                }
            } catch {
                self.error("\(error.reason) in '\(path)'", at: line.location)
            }
        }
        return expectation
    }

    /// A step's `form:` block: the body's template and the captured form whose fields go first
    /// (`"*": ${session.NAME}`), or nil after an error. Each value may hold variables, checked
    /// like a request's.
    mutating func readForm(_ entry: PlanEntry, _ path: String) -> (body: String, fields: String?)? {
        var fields: [(name: String, value: String)] = []
        var spread: String?
        for field in entries(entry.value, at: path) {
            let fieldPath = "\(path).\(field.key)"
            guard let value = scalar(field.value, keyLocation: field.keyLocation, path: fieldPath, expected: "a field's value") else {
                continue
            }
            noteTemplate(fieldPath, value)
            if field.key == "*" {
                let name = value.text.trimmingCharacters(in: .whitespaces)
                guard name.hasPrefix("${session."), name.hasSuffix("}"),
                    PlanInterpolation.isVariableName(String(name.dropFirst(10).dropLast()))
                else {
                    error(
                        "'\(fieldPath)' takes a form captured whole, '${session.NAME}' with 'capture: NAME: form *', found '\(value.text)'",
                        at: value.location)
                    continue
                }
                spread = String(name.dropFirst(10).dropLast())
                continue
            }
            fields.append((field.key, value.text))
        }
        do throws(TemplateError) {
            return (try JourneyStep.formBody(fields), spread)
        } catch {
            // Said at the field by the template checks.
            return nil
        }
    }

    /// `journey:` — the steps in order, each a block named by the step and read by
    /// `JourneyKeys`. Each step starts from its defaults: run once, no body, nothing read, the
    /// retry policy of a declared step.
    mutating func readJourney(_ entry: PlanEntry, into plan: inout Plan) {
        let steps = entries(entry.value, at: "journey")
        guard !steps.isEmpty else {
            error("'journey' needs at least one step: a block named by the step, with its 'request'", at: entry.keyLocation)
            return
        }
        plan.run.declaredJourney = Journey([])
        let errorsBefore = diagnostics.count
        defer { journeyHasErrors = diagnostics.count > errorsBefore }
        for stepEntry in steps {
            guard JourneyKeys.isStepName(stepEntry.key) else {
                error(
                    "a step's name is a letter, then letters, digits, '_' and '-' (it names the step in reports and thresholds), "
                        + "found '\(stepEntry.key)'", at: stepEntry.keyLocation)
                continue
            }
            guard stepEntry.key != Threshold.Scope.surveyName else {
                error("'survey' names the whole survey in thresholds: give the step another name", at: stepEntry.keyLocation)
                continue
            }
            let step = Step(stepEntry.key)
            let path = "journey.\(step.name)"
            let index = plan.run.declaredJourney?.steps.count ?? 0
            plan.run.declaredJourney?.steps.append(JourneyStep(step, call: SurveyAPI.Call(method: "GET", path: "/")))
            plan.run.retry[step] = PlanKeys.defaultRetry(nil)
            seen[path] = stepEntry
            let errors = diagnostics.count
            decodeBlock(stepEntry.value, path: path, keys: JourneyKeys.keys(step, at: index), into: &plan)
            // A step that is not a block, or has a misspelt key, has had its error already.
            if seen["\(path).idempotent"] == nil, var journey = plan.run.declaredJourney, index < journey.steps.count {
                journey.steps[index].idempotent = JourneyStep.isIdempotent(journey.steps[index].call.method)
                plan.run.declaredJourney = journey
            }
            if seen["\(path).request"] == nil, diagnostics.count == errors {
                error(
                    "step '\(step.name)' needs a 'request': its method and path, such as 'request: POST /session'",
                    at: stepEntry.keyLocation)
            }
        }
    }

    /// A declared journey that can be walked: one step per question at most, after the one step
    /// that reads the questions; `api`'s calls and the default steps' retry blocks left out.
    mutating func checkJourney(_ plan: inout Plan) {
        guard let journey = plan.run.declaredJourney else { return }
        for key in PlanKeys.children(of: "api") where key.name != "headers" {
            guard let entry = seen[key.path] else { continue }
            error(
                "'\(key.path)' is not used with 'journey': the journey's steps give the calls (a step's 'request', 'body', "
                    + "'questions', 'capture')", at: entry.keyLocation)
        }
        for step in Journey.defaultSteps {
            guard let entry = seen["retry.\(step.name)"] else { continue }
            error(
                "'retry.\(step.name)' is not used with 'journey': give a step's policy in its own block "
                    + "('journey.\(step.name).retry')", at: entry.keyLocation)
        }
        guard !journeyHasErrors else { return }
        var readsQuestions: Step?
        var perQuestion: Step?
        for step in journey.steps {
            let path = "journey.\(step.step.name)"
            func place(_ key: String) -> SourceLocation? { (seen["\(path).\(key)"] ?? seen[path])?.keyLocation }
            if step.runs == .perPage, step.questions == nil, let at = place("runs") {
                error("a page loop needs '\(path).questions': where its response lists the next page's questions", at: at)
            }
            if let at = seen["\(path).pages"]?.keyLocation, step.runs != .perPage {
                error("'\(path).pages' needs 'runs: per_page'", at: at)
            }
            if step.questions?.pattern != nil, let at = place(seen["\(path).question_id"] != nil ? "question_id" : "question_text"),
                seen["\(path).question_id"] != nil || seen["\(path).question_text"] != nil
            {
                error("'\(path).question_id' and 'question_text' go with a JSON path: a regex's groups are the id and the text", at: at)
            }
            if step.questions != nil, step.runs == .perPage {
                // A page loop reads the next pages; the first is a step's before it.
            } else if step.questions != nil {
                if seen["\(path).questions"] == nil, let at = place(seen["\(path).question_id"] != nil ? "question_id" : "question_text") {
                    error("'\(path).question_id' and 'question_text' need '\(path).questions': where the list is", at: at)
                } else if let first = readsQuestions, let at = place("questions") {
                    error("only one step reads the questions, and '\(first.name)' already does", at: at)
                } else if step.runs == .perQuestion, let at = place("questions") {
                    error("a step per question cannot read the questions: they are read once, by a step before it", at: at)
                }
                readsQuestions = readsQuestions ?? step.step
            }
            let bodies = ["body", "form", "text"].filter { seen["\(path).\($0)"] != nil }
            if bodies.count > 1, let at = place(bodies[1]) {
                error("give one body of '\(path)': 'body' (JSON), 'form' or 'text', not '\(bodies[0])' and '\(bodies[1])'", at: at)
            }
            if let at = seen["\(path).content_type"]?.keyLocation, seen["\(path).text"] == nil {
                error("'\(path).content_type' goes with 'text' (a JSON body or a form has its own)", at: at)
            }
            let sendsAll = step.runs == .perSurvey || step.runs == .perPage
            if sendsAll, bodies.first == "text", let at = place("text") {
                error(
                    "a step \(step.runs == .perPage ? "per page" : "per survey") sends its answers in a JSON 'body' (${answers}) or a 'form', not in 'text'",
                    at: at)
            }
            if sendsAll, bodies.first == "form", let at = seen["\(path).answers_item"]?.keyLocation {
                error("'\(path).answers_item' is a JSON list's item: a form's answers are fields named by 'answers_key'", at: at)
            }
            if step.formFields != nil, let at = seen["\(path).form"]?.keyLocation,
                !journey.steps.contains(where: { $0.captures.contains { $0.name == step.formFields && $0.source == .formField("*") } })
            {
                error(
                    "'\(path).form' puts first the fields of '${session.\(step.formFields ?? "")}', which no step captures as 'form *'",
                    at: at)
            }
            if let at = seen["\(path).answers_value"]?.keyLocation, seen["\(path).answers_item"] != nil || bodies.first == "form" {
                error("'\(path).answers_value' goes with a JSON object of answers: not with 'answers_item' or a 'form'", at: at)
            }
            for key in ["answers_key", "answers_item", "answers_value"] where !sendsAll {
                if let at = seen["\(path).\(key)"]?.keyLocation { error("'\(path).\(key)' needs 'runs: per_survey' or 'per_page'", at: at) }
            }
            if let key = seen["\(path).answers_key"], seen["\(path).answers_item"] != nil {
                error("give '\(path).answers_key' (an object) or 'answers_item' (a list), not both", at: key.keyLocation)
            }
            guard step.runs.answers, let at = place("runs") else { continue }
            let runs = step.runs == .perQuestion ? "per question" : step.runs == .perPage ? "per page" : "per survey"
            if let first = perQuestion {
                error("a journey has one step that sends the answers, and '\(first.name)' already does", at: at)
            } else if readsQuestions == nil {
                error("'\(path)' runs \(runs), but no step before it reads the questions: give one of them 'questions'", at: at)
            } else if step.always {
                error("a step \(runs) cannot run 'always': it sends the answers of a survey that went on", at: at)
            } else if sendsAll, seen["\(path).body"] != nil, let body = step.body, !body.contains("${answers}"),
                let at = place("body")
            {
                error("'\(path).body' needs ${answers}: where every answer of the survey goes", at: at)
            }
            perQuestion = perQuestion ?? step.step
        }
    }
}
