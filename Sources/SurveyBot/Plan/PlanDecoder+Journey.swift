import SurveyEngine

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
