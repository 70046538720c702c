import SurveyJourney
import SurveyMetrics
import SurveyWire

/// The requests a respondent sends: each step's, made from the run's prebuilt recipes with the
/// respondent's own values (its data row, its captured session, the question and its answer).
extension Respondent {
    /// The values its templates are filled in with.
    func values(_ context: SurveyContext) -> CompiledTemplate.Values {
        CompiledTemplate.Values(row: row, respondentID: index, session: session)
    }

    /// The request of a step run once, with the respondent's own head when it has variables;
    /// its body and headers kept when the step reads them.
    @inline(never)
    func onceRequest(_ step: CompiledStep, _ context: SurveyContext) -> HTTPRequest {
        let recipe = step.request
        let values = values(context)
        var request = HTTPRequest(recipe.fixed ?? recipe.template(values), body: recipe.renderBody(values), collectBody: recipe.readsBody)
        request.collectHeaders = recipe.readsHeaders
        request.collectCookies = recipe.readsCookies
        request.scope = affinity.map(HTTPRequest.Scope.respondent) ?? .run(context.earlyEnd.cutoff)
        return request
    }

    /// The answer the respondent gives the `index`-th question, and the think time before it;
    /// nil when the plan has no answer for it (the question is skipped).
    mutating func answer(_ index: Int, step: CompiledStep, _ context: SurveyContext) -> (text: String, think: UInt64)? {
        let question = questions[index]
        var answer: String
        if let fromRow = rowAnswer(question.id, context) {
            answer = fromRow
            countAnswer(index, .fromData, context)
        } else {
            guard let choices = context.answers.choices(for: question.id), !choices.isEmpty else { return nil }
            let choice = choices.count == 1 ? 0 : Int(random.next() % UInt64(choices.count))
            answer = choices[choice]
            countAnswer(index, .choice(choice), context)
            if !context.answerTemplates.isEmpty, let template = context.answerTemplates[answer] {
                answer = template.string(values(context))
            }
        }
        return (answer, (step.think ?? context.think).sample(using: &random).clampedNanoseconds)
    }

    /// The request of `step` for the `index`-th question and the think time before it;
    /// nil when the plan has no answer for it (the question is skipped). Without a body of its
    /// own, the step sends the survey contract's `{"id":…,"answer":"…"}`.
    @inline(never)
    mutating func nextPerQuestion(_ step: CompiledStep, _ index: Int, _ context: SurveyContext) -> (request: HTTPRequest, think: UInt64)? {
        guard let (answer, think) = answer(index, step: step, context) else { return nil }
        let question = questions[index]
        let recipe = step.request
        var request: HTTPRequest
        if let fixed = recipe.fixed, recipe.body == nil {
            request = HTTPRequest(fixed, body: Self.submitBody(id: question.id, answer: answer))
        } else {
            var values = values(context)
            // Its own head, made once, when its row or session is in it but not the question.
            if perQuestionHead == nil, recipe.fixed == nil, !recipe.headPerQuestion { perQuestionHead = recipe.template(values) }
            values.questionID = question.id
            values.questionFields = question.fields
            values.answer = answer
            let template = recipe.fixed ?? perQuestionHead ?? recipe.template(values)
            request = HTTPRequest(template, body: recipe.renderBody(values) ?? Self.submitBody(id: question.id, answer: answer))
        }
        request.collectBody = recipe.readsBody
        request.collectHeaders = recipe.readsHeaders
        request.collectCookies = recipe.readsCookies
        request.scope = affinity.map(HTTPRequest.Scope.respondent) ?? .run(context.earlyEnd.cutoff)
        return (request, think)
    }

    /// The request of a step per survey or per page: every question's answer, in the order the
    /// respondent walks them, laid out in `${answers}`; the think time is every question's, one
    /// after the other. Counts the questions without an answer in `skipped`; nil when none has
    /// one, but for a page, which is sent without answers then.
    @inline(never)
    mutating func surveyRequest(
        _ step: CompiledStep, _ context: SurveyContext, skipped: inout Int, page: Bool = false
    ) -> (request: HTTPRequest, think: UInt64, answered: Int)? {
        let recipe = step.request
        var values = values(context)
        let list = recipe.answersItem != nil
        let form = recipe.isForm
        var answerNames: Set<Substring> = []
        var answers: [UInt8] = form ? [] : [list ? 0x5B : 0x7B]
        var think: UInt64 = 0
        var answered = 0
        for index in questions.indices {
            guard let (answer, wait) = answer(index, step: step, context) else {
                skipped += 1
                continue
            }
            think = think.addingReportingOverflow(wait).overflow ? .max : think + wait
            values.questionID = questions[index].id
            values.questionFields = questions[index].fields
            values.answer = answer
            if form {
                let name = CompiledTemplate.formEncoded(recipe.answersKey?.string(values) ?? values.questionID.text)
                answers.append(0x26)
                answers.append(contentsOf: name.utf8)
                answers.append(0x3D)
                answers.append(contentsOf: CompiledTemplate.formEncoded(answer).utf8)
                if recipe.formFieldsSlot != nil { answerNames.insert(name[...]) }
                answered += 1
                continue
            }
            if answered > 0 { answers.append(0x2C) }
            if let item = recipe.answersItem {
                item.render(values, into: &answers)
            } else {
                answers.append(0x22)
                CompiledTemplate.appendJSONEscaped(recipe.answersKey?.string(values) ?? values.questionID.text, to: &answers)
                if let value = recipe.answersValue {
                    answers.append(contentsOf: [0x22, 0x3A])
                    value.render(values, into: &answers)
                } else {
                    answers.append(contentsOf: [0x22, 0x3A, 0x22])
                    CompiledTemplate.appendJSONEscaped(answer, to: &answers)
                    answers.append(0x22)
                }
            }
            answered += 1
        }
        guard answered > 0 || page else { return nil }
        if !form { answers.append(list ? 0x5D : 0x7D) }
        values.answers = answers
        var request = HTTPRequest(
            recipe.fixed ?? recipe.template(values), body: recipe.renderBody(values, answerNames: answerNames),
            collectBody: recipe.readsBody)
        request.collectHeaders = recipe.readsHeaders
        request.collectCookies = recipe.readsCookies
        request.scope = affinity.map(HTTPRequest.Scope.respondent) ?? .run(context.earlyEnd.cutoff)
        return (request, think, answered)
    }

    /// The answer its data row gives question `id` (a non-empty `answer.<id>` cell), if any.
    func rowAnswer(_ id: QuestionID, _ context: SurveyContext) -> String? {
        guard !context.answerColumns.isEmpty, let column = context.answerColumns[id], column < row.count else { return nil }
        let value = row[column]
        return value.isEmpty ? nil : value
    }

    /// `{"id":<id>,"answer":"<answer>"}`, written as bytes; the id as the API gave it, a number
    /// or a string.
    static func submitBody(id: QuestionID, answer: String) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(26 + id.text.utf8.count + answer.utf8.count)
        body.append(contentsOf: #"{"id":"#.utf8)
        if id.isInteger {
            body.append(contentsOf: id.text.utf8)
        } else {
            body.append(0x22)
            CompiledTemplate.appendJSONEscaped(id.text, to: &body)
            body.append(0x22)
        }
        body.append(contentsOf: #","answer":""#.utf8)
        CompiledTemplate.appendJSONEscaped(answer, to: &body)
        body.append(contentsOf: #""}"#.utf8)
        return body
    }
}
