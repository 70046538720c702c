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

    /// What a respondent does with one question: answers it (after a think time), leaves it
    /// out for want of an answer (the plan has none, or the survey lists nothing to pick
    /// from), or declines it (an optional question it chose to skip, or the plan's `skip()`).
    enum Answering {
        case answer(GivenAnswer, think: UInt64)
        case skipped
        case declined
    }

    /// The answer the respondent gives the `index`-th question, and the think time before it:
    /// its data row's, else the plan's by the question's id, its type, or `"*"` — a value, or
    /// one picked from what the question lists (`AnswerPicker`).
    ///
    /// The question is read in place, a part at a time, never copied whole: a copy retains and
    /// releases each of its references, on every answer.
    mutating func answer(_ index: Int, step: CompiledStep, _ context: SurveyContext) -> Answering {
        var given: GivenAnswer
        if !context.answerColumns.isEmpty, let fromRow = rowAnswer(questions[index].id, context) {
            given = GivenAnswer(text: fromRow)
            countAnswer(index, .fromData, context)
        } else {
            let book = context.answers
            if book.skipOptional > 0, !questions[index].isRequired, Double(random.next() >> 11) * 0x1p-53 < book.skipOptional {
                return .declined
            }
            // Worked out once for the survey read (`QuestionsCache`); here only for a question
            // that came some other way.
            let plan: AnswerPlan
            if let cached = questions.answerPlan(at: index) {
                plan = cached
            } else {
                plan = book.plan(for: questions[index])
            }
            guard let picker = plan.picker else { return .skipped }
            if case .fixed(let choices) = picker {
                guard !choices.isEmpty else { return .skipped }
                let choice = choices.count == 1 ? 0 : Int(random.next() % UInt64(choices.count))
                given = GivenAnswer(text: choices[choice])
                // The plan's own values are shown as the plan writes them (by their place); a
                // type's by its name and place, never as sent (a value may be a secret).
                if !plan.byType {
                    countAnswer(index, .choice(choice), context)
                } else {
                    countAnswer(index, .text("(\(questions[index].type ?? "type") answer \(choice + 1))"), context)
                }
                if !context.answerTemplates.isEmpty, let template = context.answerTemplates[given.text] {
                    given = GivenAnswer(text: template.string(values(context)))
                }
            } else {
                switch plan.pick(using: &random) {
                case .answer(let picked):
                    given = picked
                    // Read from the survey: a choice or a number as it is; free text as one bucket.
                    if case .words = picker {
                        countAnswer(index, .text("(words)"), context)
                    } else {
                        countAnswer(index, .text(picked.text), context)
                    }
                case .skip: return .declined
                case .unanswerable: return .skipped
                }
            }
        }
        return .answer(given, think: (step.think ?? context.think).sample(using: &random).clampedNanoseconds)
    }

    /// Fills in the question's answer: as text, as its label, and as JSON — its type's value
    /// shape (`AnswerType.value`) when the step has one for it, else the answer's own JSON.
    static func fill(
        _ values: inout CompiledTemplate.Values, with given: GivenAnswer, of question: SurveyQuestion, _ recipe: SurveyRequests.Recipe
    ) {
        values.questionID = question.id
        values.questionFields = question.fields
        values.answer = given.text
        values.answerLabel = given.label
        values.answerJSON = given.json
        guard recipe.typeValues.count + recipe.typeEach.count > 0, let type = question.type else { return }
        if let each = recipe.typeEach[type] {
            // Each value in its own shape, `${answer}` the list of them.
            var list: [UInt8] = [0x5B]
            for (index, value) in (given.values.isEmpty ? [given.text] : given.values).enumerated() {
                if index > 0 { list.append(0x2C) }
                values.answer = value
                values.answerJSON = nil
                each.render(values, into: &list)
            }
            list.append(0x5D)
            values.answer = given.text
            values.answerJSON = list
        }
        if let shape = recipe.typeValues[type] { values.answerJSON = shape.render(values) }
    }

    /// The call of `step` for the `index`-th question: its request and the think time before
    /// it; nil when the plan has no answer for it (the question is skipped). Without a body of
    /// its own, the step sends the survey contract's `{"id":…,"answer":"…"}`. The call is made
    /// here, where the request is, so that the request moves into it rather than being copied
    /// out of a value returned.
    @inline(never)
    mutating func nextPerQuestion(
        _ step: CompiledStep, _ index: Int, _ context: SurveyContext, declined: inout Bool
    ) -> NextCall? {
        let given: GivenAnswer
        let think: UInt64
        switch answer(index, step: step, context) {
        case .answer(let answer, let wait):
            given = answer
            think = wait
        case .skipped: return nil
        case .declined:
            declined = true
            return nil
        }
        let recipe = step.request
        // The head and the body first, then the request whole in one initializer: a request
        // assigned in branches and changed after was copied and destroyed twice over.
        let template: HTTPRequest.Template
        let body: [UInt8]
        if let fixed = recipe.fixed, recipe.body == nil, given.json == nil, recipe.typeValues.isEmpty {
            template = fixed
            body = Self.submitBody(id: questions[index].id, answer: given.text)
        } else {
            let question = questions[index]
            var values = values(context)
            // Its own head, made once, when its row or session is in it but not the question.
            if perQuestionHead == nil, recipe.fixed == nil, !recipe.headPerQuestion { perQuestionHead = recipe.template(values) }
            Self.fill(&values, with: given, of: question, recipe)
            template = recipe.fixed ?? perQuestionHead ?? recipe.template(values)
            body = recipe.renderBody(values) ?? Self.submitBody(id: question.id, answer: given.text, json: values.answerJSON)
        }
        return NextCall(
            step: step.position,
            request: HTTPRequest(
                template, body: body, collectBody: recipe.readsBody, collectHeaders: recipe.readsHeaders,
                collectCookies: recipe.readsCookies, scope: affinity.map(HTTPRequest.Scope.respondent) ?? .run(context.earlyEnd.cutoff)),
            think: think)
    }

    /// The request of a step per survey or per page: every question's answer, in the order the
    /// respondent walks them, laid out in `${answers}`; the think time is every question's, one
    /// after the other. Counts the questions without an answer in `skipped`; nil when none has
    /// one, but for a page, which is sent without answers then.
    @inline(never)
    mutating func surveyRequest(
        _ step: CompiledStep, _ context: SurveyContext, _ tally: inout RespondentResult, page: Bool = false
    ) -> (request: HTTPRequest, think: UInt64, answered: Int)? {
        let recipe = step.request
        var values = values(context)
        let list = recipe.answersItem != nil
        let form = recipe.isForm
        var answerNames: Set<Substring> = []
        var answers: [UInt8] = form ? [] : [list ? 0x5B : 0x7B]
        var think: UInt64 = 0
        var answered = 0
        // Laid out by group: each group's answers apart, in the order the groups were listed.
        let grouped = recipe.answersGroup != nil
        var groups: [OpenGroup] = []
        for index in questions.indices {
            if grouped { Self.openGroup(of: questions[index], in: &groups) }
            let given: GivenAnswer
            switch answer(index, step: step, context) {
            case .answer(let answer, let wait):
                given = answer
                think = think.addingReportingOverflow(wait).overflow ? .max : think + wait
            case .skipped:
                tally.skipped += 1
                continue
            case .declined:
                tally.declined += 1
                countChosenSkip(index, context)
                continue
            }
            let question = questions[index]
            Self.fill(&values, with: given, of: question, recipe)
            if form {
                let name = CompiledTemplate.formEncoded(recipe.answersKey?.string(values) ?? values.questionID.text)
                // A multiple choice as a browser sends checkboxes: the field once per value.
                for value in given.values.isEmpty ? [given.text] : given.values {
                    answers.append(0x26)
                    answers.append(contentsOf: name.utf8)
                    answers.append(0x3D)
                    answers.append(contentsOf: CompiledTemplate.formEncoded(value).utf8)
                }
                if recipe.formFieldsSlot != nil { answerNames.insert(name[...]) }
                answered += 1
                continue
            }
            if grouped {
                // Written into its group's answers, then back.
                let slot = groups.firstIndex { $0.group == (question.details?.group ?? -1) } ?? 0
                swap(&answers, &groups[slot].answers)
                if groups[slot].count > 0 { answers.append(0x2C) }
                groups[slot].count += 1
            } else if answered > 0 {
                answers.append(0x2C)
            }
            defer {
                if grouped, let slot = groups.firstIndex(where: { $0.group == (question.details?.group ?? -1) }) {
                    swap(&answers, &groups[slot].answers)
                }
            }
            let type = recipe.typeItems.isEmpty && recipe.typeValues.isEmpty ? nil : question.type
            if let item = type.flatMap({ recipe.typeItems[$0] }) ?? recipe.answersItem {
                item.render(values, into: &answers)
            } else {
                answers.append(0x22)
                CompiledTemplate.appendJSONEscaped(recipe.answersKey?.string(values) ?? values.questionID.text, to: &answers)
                answers.append(contentsOf: [0x22, 0x3A])
                if type.flatMap({ recipe.typeValues[$0] }) == nil, let value = recipe.answersValue {
                    value.render(values, into: &answers)
                } else if let json = values.answerJSON {
                    answers.append(contentsOf: json)
                } else {
                    answers.append(0x22)
                    CompiledTemplate.appendJSONEscaped(given.text, to: &answers)
                    answers.append(0x22)
                }
            }
            answered += 1
        }
        guard answered > 0 || page else { return nil }
        if let template = recipe.answersGroup {
            answers = [0x5B]
            for (position, group) in groups.sorted(by: { $0.group < $1.group }).enumerated() {
                if position > 0 { answers.append(0x2C) }
                values.answers = [list ? 0x5B : 0x7B] + group.answers + [list ? 0x5D : 0x7D]
                values.groupID = group.id
                values.groupFields = group.fields
                template.render(values, into: &answers)
            }
            answers.append(0x5D)
        } else if !form {
            answers.append(list ? 0x5D : 0x7D)
        }
        values.answers = answers
        var request = HTTPRequest(
            recipe.fixed ?? recipe.template(values), body: recipe.renderBody(values, answerNames: answerNames),
            collectBody: recipe.readsBody)
        request.collectHeaders = recipe.readsHeaders
        request.collectCookies = recipe.readsCookies
        request.scope = affinity.map(HTTPRequest.Scope.respondent) ?? .run(context.earlyEnd.cutoff)
        return (request, think, answered)
    }

    /// Adds the group `question` is listed in to `groups`, if it is not there yet: a group
    /// whose questions all go unanswered is still sent, empty.
    private static func openGroup(of question: SurveyQuestion, in groups: inout [OpenGroup]) {
        let group = question.details?.group ?? -1
        guard !groups.contains(where: { $0.group == group }) else { return }
        groups.append((group, question.details?.groupID ?? "", question.details?.groupFields ?? [], [], 0))
    }

    /// A group being laid out: its position, id and fields, its answers so far and how many.
    typealias OpenGroup = (group: Int32, id: String, fields: [String], answers: [UInt8], count: Int)

    /// The answer its data row gives question `id` (a non-empty `answer.<id>` cell), if any.
    func rowAnswer(_ id: QuestionID, _ context: SurveyContext) -> String? {
        guard !context.answerColumns.isEmpty, let column = context.answerColumns[id], column < row.count else { return nil }
        let value = row[column]
        return value.isEmpty ? nil : value
    }

    /// `{"id":<id>,"answer":"<answer>"}`, written as bytes; the id as the API gave it, a number
    /// or a string. Every submit's body: each part is copied from its contiguous bytes
    /// (`appendBytes`), not walked as a sequence of a `String`'s UTF-8 by a call into the
    /// library per part.
    static func submitBody(id: QuestionID, answer: String, json: [UInt8]? = nil) -> [UInt8] {
        if id.isInteger, json == nil {
            var idText = id.text
            var answerText = answer
            if let body = idText.withUTF8({ id in answerText.withUTF8 { Self.plainSubmitBody(id: id, answer: $0) } }) { return body }
        }
        var body: [UInt8] = []
        body.reserveCapacity(26 + id.text.utf8.count + answer.utf8.count)
        appendBytes(#"{"id":"#, to: &body)
        if id.isInteger {
            var text = id.text
            text.withUTF8 { body.append(contentsOf: $0) }
        } else {
            body.append(0x22)
            CompiledTemplate.appendJSONEscaped(id.text, to: &body)
            body.append(0x22)
        }
        if let json {
            appendBytes(#","answer":"#, to: &body)
            body.append(contentsOf: json)
            body.append(0x7D)
            return body
        }
        appendBytes(#","answer":""#, to: &body)
        CompiledTemplate.appendJSONEscaped(answer, to: &body)
        appendBytes(#""}"#, to: &body)
        return body
    }

    /// `{"id":<id>,"answer":"<answer>"}` for a numeric id and an answer with nothing JSON
    /// escapes — nearly every submit — made in one allocation, its five parts copied in; nil
    /// for an answer that needs escapes.
    private static func plainSubmitBody(id: UnsafeBufferPointer<UInt8>, answer: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard !answer.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return nil }
        let open: StaticString = #"{"id":"#
        let middle: StaticString = #","answer":""#
        let close: StaticString = #""}"#
        let count = open.utf8CodeUnitCount + id.count + middle.utf8CodeUnitCount + answer.count + close.utf8CodeUnitCount
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard var at = UnsafeMutableRawPointer(buffer.baseAddress) else { return }
            func put(_ start: UnsafeRawPointer?, _ length: Int) {
                if let start, length > 0 { at.copyMemory(from: start, byteCount: length) }
                at += length
            }
            put(open.utf8Start, open.utf8CodeUnitCount)
            put(id.baseAddress, id.count)
            put(middle.utf8Start, middle.utf8CodeUnitCount)
            put(answer.baseAddress, answer.count)
            put(close.utf8Start, close.utf8CodeUnitCount)
            initialized = count
        }
    }

    /// Appends a literal's bytes to `body` in one copy.
    @inline(__always)
    private static func appendBytes(_ literal: StaticString, to body: inout [UInt8]) {
        literal.withUTF8Buffer { body.append(contentsOf: $0) }
    }
}
