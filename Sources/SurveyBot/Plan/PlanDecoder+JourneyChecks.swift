import SurveyEngine
import SurveyJourney

/// The checks across a declared journey's keys and steps, run once every key is read: each
/// names the step's key to change, at its place, looked up by its name (`JourneyKeys.Name`).
extension PlanDecoder {
    /// The entry of a step's key, when the plan gives it.
    func seen(_ step: Step, _ key: JourneyKeys.Name) -> PlanEntry? {
        seen[JourneyKeys.path(step, key)]
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
            guard let entry = seen(.retryBlock(step)) else { continue }
            error(
                "'retry.\(step.name)' is not used with 'journey': give a step's policy in its own block "
                    + "('journey.\(step.name).retry')", at: entry.keyLocation)
        }
        guard !journeyHasErrors else { return }
        var readsQuestions: Step?
        var perQuestion: Step?
        for step in journey.steps {
            checkQuestions(of: step, readsQuestions: &readsQuestions)
            checkBody(of: step, in: journey)
            checkAnswers(of: step, readsQuestions: readsQuestions, perQuestion: &perQuestion)
            checkDetails(of: step)
        }
    }

    /// Where the key is, or else the step: a check about a default names the step.
    private func place(_ step: JourneyStep, _ key: JourneyKeys.Name) -> SourceLocation? {
        (seen(step.step, key) ?? seen[JourneyKeys.path(step.step)])?.keyLocation
    }

    /// A page loop's questions and pages; one step that reads the questions, before the step
    /// per question; a regex without the JSON paths of its id and text.
    private mutating func checkQuestions(of step: JourneyStep, readsQuestions: inout Step?) {
        let path = JourneyKeys.path(step.step)
        let name = step.step
        if step.runs == .perPage, step.questions == nil, let at = place(step, .runs) {
            error("a page loop needs '\(path).questions': where its response lists the next page's questions", at: at)
        }
        if let at = seen(name, .pages)?.keyLocation, step.runs != .perPage {
            error("'\(path).pages' needs 'runs: per_page'", at: at)
        }
        let questionPath: JourneyKeys.Name = seen(name, .questionID) != nil ? .questionID : .questionText
        if step.questions?.pattern != nil, let at = place(step, questionPath),
            seen(name, .questionID) != nil || seen(name, .questionText) != nil
        {
            error("'\(path).question_id' and 'question_text' go with a JSON path: a regex's groups are the id and the text", at: at)
        }
        if step.questions != nil, step.runs == .perPage {
            // A page loop reads the next pages; the first is a step's before it.
        } else if step.questions != nil {
            if seen(name, .questions) == nil, seen(name, .questionID) != nil || seen(name, .questionText) != nil,
                let at = place(step, questionPath)
            {
                error("'\(path).question_id' and 'question_text' need '\(path).questions': where the list is", at: at)
            } else if let first = readsQuestions, seen(name, .questions) != nil, let at = place(step, .questions) {
                error("only one step reads the questions, and '\(first.name)' already does", at: at)
            } else if step.runs == .perQuestion, let at = place(step, .questions) {
                error("a step per question cannot read the questions: they are read once, by a step before it", at: at)
            }
            readsQuestions = readsQuestions ?? step.step
        }
    }

    /// The bodies given (`body`, `form` or `text`), in that order.
    private func bodies(of step: JourneyStep) -> [JourneyKeys.Name] {
        [.body, .form, .text].filter { seen(step.step, $0) != nil }
    }

    /// One body; `content_type` with `text`; the answers of a step that sends them all in a
    /// body that can hold them; the form captured whole whose fields a form puts first.
    private mutating func checkBody(of step: JourneyStep, in journey: Journey) {
        let path = JourneyKeys.path(step.step)
        let name = step.step
        let bodies = bodies(of: step)
        if bodies.count > 1, let at = place(step, bodies[1]) {
            error(
                "give one body of '\(path)': 'body' (JSON), 'form' or 'text', not '\(bodies[0].rawValue)' and '\(bodies[1].rawValue)'",
                at: at)
        }
        if let at = seen(name, .contentType)?.keyLocation, seen(name, .text) == nil {
            error("'\(path).content_type' goes with 'text' (a JSON body or a form has its own)", at: at)
        }
        let sendsAll = step.runs == .perSurvey || step.runs == .perPage
        if sendsAll, bodies.first == .text, let at = place(step, .text) {
            error(
                "a step \(step.runs == .perPage ? "per page" : "per survey") sends its answers in a JSON 'body' (${answers}) or a 'form', not in 'text'",
                at: at)
        }
        if sendsAll, bodies.first == .form, let at = seen(name, .answersItem)?.keyLocation {
            error("'\(path).answers_item' is a JSON list's item: a form's answers are fields named by 'answers_key'", at: at)
        }
        if step.formFields != nil, let at = seen(name, .form)?.keyLocation,
            !journey.steps.contains(where: { $0.captures.contains { $0.name == step.formFields && $0.source == .formField("*") } })
        {
            error(
                "'\(path).form' puts first the fields of '${session.\(step.formFields ?? "")}', which no step captures as 'form *'",
                at: at)
        }
    }

    /// How the answers are laid out, by a step that sends them; one step that sends them, after
    /// the one that reads the questions, never `always`, its body holding `${answers}`.
    private mutating func checkAnswers(of step: JourneyStep, readsQuestions: Step?, perQuestion: inout Step?) {
        let path = JourneyKeys.path(step.step)
        let name = step.step
        let bodies = bodies(of: step)
        let sendsAll = step.runs == .perSurvey || step.runs == .perPage
        if let at = seen(name, .answersValue)?.keyLocation, seen(name, .answersItem) != nil || bodies.first == .form {
            error("'\(path).answers_value' goes with a JSON object of answers: not with 'answers_item' or a 'form'", at: at)
        }
        for key in [JourneyKeys.Name.answersKey, .answersItem, .answersValue] where !sendsAll {
            if let at = seen(name, key)?.keyLocation { error("'\(path).\(key.rawValue)' needs 'runs: per_survey' or 'per_page'", at: at) }
        }
        if let key = seen(name, .answersKey), seen(name, .answersItem) != nil {
            error("give '\(path).answers_key' (an object) or 'answers_item' (a list), not both", at: key.keyLocation)
        }
        guard step.runs.answers, let at = place(step, .runs) else { return }
        let runs = step.runs == .perQuestion ? "per question" : step.runs == .perPage ? "per page" : "per survey"
        if let first = perQuestion {
            error("a journey has one step that sends the answers, and '\(first.name)' already does", at: at)
        } else if readsQuestions == nil {
            error("'\(path)' runs \(runs), but no step before it reads the questions: give one of them 'questions'", at: at)
        } else if step.always {
            error("a step \(runs) cannot run 'always': it sends the answers of a survey that went on", at: at)
        } else if sendsAll, seen(name, .body) != nil, let body = step.body, !body.contains("${answers}"), let at = place(step, .body) {
            error("'\(path).body' needs ${answers}: where every answer of the survey goes", at: at)
        }
        perQuestion = perQuestion ?? step.step
    }
}
