import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// Respondents that answer from what the survey lists: its choices (three layouts, and an HTML
/// page's inputs), its types with a shape each, its bounds, its groups, its required flags.
@Suite struct AnswersFromSurveyTests {
    /// A page of the Qualtrics shape: a multiple-choice question whose choices are an object
    /// keyed by id, and a text question with none.
    static let qualtricsPage = #"""
        {"questions": [
          {"questionId": "QID1", "type": "MC", "display": "Colour?",
           "choices": {"1": {"choiceText": "Red"}, "2": {"choiceText": "Blue"}}},
          {"questionId": "QID2", "type": "TE", "display": "Why?"}
        ]}
        """#

    static func shape(_ configure: (inout QuestionDetails.Shape) -> Void) -> SurveyQuestion.Shape {
        var shape = SurveyQuestion.Shape(list: try! JSONPath(parsing: "questions"), id: try! JSONPath(parsing: "questionId"))
        shape.text = try! JSONPath(parsing: "display")
        var details = QuestionDetails.Shape()
        configure(&details)
        shape.details = details
        return shape
    }

    /// Walks `steps` once against `transport`, with `answers`.
    func walk(_ steps: [JourneyStep], _ transport: ScriptedTransport, answers: AnswerBook, seed: UInt64 = 1) async throws
        -> RespondentResult
    {
        let journey = Journey(steps)
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: answers)
        configuration.cookies = false
        configuration.declaredJourney = journey
        for step in journey.names { configuration.retry[step] = .never }
        let context = SurveyContext(
            configuration: configuration,
            requests: try SurveyRequests(journey: journey, headers: [], target: target, types: answers.types), seed: seed,
            transport: transport, clock: VirtualClock().clock, recorder: MetricsRecorder(lanes: 1, steps: journey.names),
            interruption: OnceFlag(), runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: seed, lane: 0)
        return await respondent.run(context)
    }

    /// A survey read by `GET /survey` and answered by one `POST /answers` of every answer.
    func oneSurvey(_ page: String, shape: SurveyQuestion.Shape, body: String = #"{"responses": ${answers}}"#) -> (
        [JourneyStep], ScriptedTransport
    ) {
        let transport = ScriptedTransport { sent, _ in ok(sent.path == "/survey" ? page : "{}") }
        let read = JourneyStep(Step("read"), call: .init(method: "GET", path: "/survey"), questions: shape)
        let send = JourneyStep(
            Step("send"), call: .init(method: "POST", path: "/answers"), body: body, runs: .perSurvey,
            answers: .object(key: "${question.id}"))
        return ([read, send], transport)
    }

    @Test func aPageMixingChoiceAndTextQuestionsIsAnsweredInEachOnesShape() async throws {
        let shape = Self.shape {
            $0.choices = .path(try! JSONPath(parsing: "choices"))
            $0.choiceLabel = try! JSONPath(parsing: "choiceText")
            $0.type = try! JSONPath(parsing: "type")
        }
        let (steps, transport) = oneSurvey(Self.qualtricsPage, shape: shape)
        var book = AnswerBook()
        book.types["MC"] = AnswerType(answer: .choice([.init(.label("blue"))]), value: #"{${answer}: {"selected": true}}"#)
        book.types["TE"] = AnswerType(answer: .fixed(["Because"]))
        let result = try await walk(steps, transport, answers: book)
        #expect(result.ending == .completed && result.submitted == 2)
        #expect(transport.sent[1].body == #"{"responses": {"QID1":{"2": {"selected": true}},"QID2":"Because"}}"#)
    }

    @Test func choicesAreReadInEachOfTheirLayouts() throws {
        var shape = Self.shape { $0.choices = .path(try! JSONPath(parsing: "c")) }
        let body = #"""
            {"questions": [
              {"questionId": "a", "display": "", "c": [{"id": 7, "label": "Seven"}, {"id": "x", "label": "Ex"}]},
              {"questionId": "b", "display": "", "c": ["yes", "no"]},
              {"questionId": "c", "display": "", "c": {"k1": "One", "k2": {"label": "Two"}}},
              {"questionId": "d", "display": ""}
            ]}
            """#
        let questions = try SurveyQuestion.list(from: Array(body.utf8), shape: shape).get()
        #expect(questions[0].details?.choices == [.init(id: "7", label: "Seven", isInteger: true), .init(id: "x", label: "Ex")])
        #expect(questions[1].details?.choices == [.init(id: "yes", label: "yes"), .init(id: "no", label: "no")])
        #expect(questions[2].details?.choices == [.init(id: "k1", label: "One"), .init(id: "k2", label: "Two")])
        #expect(questions[3].details?.choices == [], "a question without choices is no breach")
        shape.details?.choices = .path(try JSONPath(parsing: "questionId"))
        #expect(throws: SurveyQuestion.ContractError.self) { try SurveyQuestion.list(from: Array(body.utf8), shape: shape).get() }
    }

    @Test func aQuestionThatListsNoChoicesIsSkippedAloneAndTheRestAreAnswered() async throws {
        let shape = Self.shape { $0.choices = .path(try! JSONPath(parsing: "choices")) }
        let (steps, transport) = oneSurvey(Self.qualtricsPage, shape: shape)
        let result = try await walk(steps, transport, answers: AnswerBook(fallbackPicker: .choice([])))
        #expect(result.submitted == 1 && result.skipped == 1)
        #expect(result.ending == .finishedWithUnanswered)
        let sent = transport.sent[1].body
        #expect(sent == #"{"responses": {"QID1":"1"}}"# || sent == #"{"responses": {"QID1":"2"}}"#)
    }

    @Test func severalChoicesGoAsAJSONListAndAsAFieldEachInAForm() async throws {
        let page = #"{"questions": [{"questionId": "q", "display": "", "choices": [{"id": 1}, {"id": 2}, {"id": 3}]}]}"#
        let shape = Self.shape { $0.choices = .path(try! JSONPath(parsing: "choices")) }
        let (steps, transport) = oneSurvey(page, shape: shape)
        _ = try await walk(steps, transport, answers: AnswerBook(fallbackPicker: .choices(3...3)))
        #expect(transport.sent[1].body == #"{"responses": {"q":[1,2,3]}}"#, "every choice, in the survey's order, as the integers it gave")

        var form = steps
        form[1].body = try JourneyStep.formBody([("go", "1")])
        form[1].bodyFormat = .form
        let formTransport = ScriptedTransport { sent, _ in ok(sent.path == "/survey" ? page : "{}") }
        _ = try await walk(form, formTransport, answers: AnswerBook(fallbackPicker: .choices(2...2)))
        let fields = formTransport.sent[1].body.split(separator: "&").map(String.init)
        #expect(fields.count == 3 && fields[0] == "go=1")
        #expect(fields.dropFirst().allSatisfy { $0.hasPrefix("q=") } && Set(fields.dropFirst()).count == 2)
    }

    @Test func aNumberIsDrawnWithinTheBoundsTheSurveyGives() async throws {
        let page = #"{"questions": [{"questionId": "nps", "display": "", "min": 3, "max": 5}]}"#
        let shape = Self.shape {
            $0.minimum = try! JSONPath(parsing: "min")
            $0.maximum = try! JSONPath(parsing: "max")
        }
        var seen = Set<String>()
        for seed in 1...40 {
            let (steps, transport) = oneSurvey(page, shape: shape)
            _ = try await walk(steps, transport, answers: AnswerBook(fallbackPicker: .number(nil)), seed: UInt64(seed))
            seen.insert(transport.sent[1].body)
        }
        #expect(seen == [#"{"responses": {"nps":3}}"#, #"{"responses": {"nps":4}}"#, #"{"responses": {"nps":5}}"#])
    }

    @Test func optionalQuestionsAreDeclinedAtTheRateAndRequiredOnesNever() async throws {
        let page = #"""
            {"questions": [{"questionId": "r", "display": "", "req": true}, {"questionId": "o", "display": "", "req": false},
                           {"questionId": "m", "display": ""}]}
            """#
        let shape = Self.shape { $0.required = try! JSONPath(parsing: "req") }
        let (steps, transport) = oneSurvey(page, shape: shape)
        var book = AnswerBook(fallback: ["x"])
        book.skipOptional = 1
        let result = try await walk(steps, transport, answers: book)
        #expect(transport.sent[1].body == #"{"responses": {"r":"x"}}"#)
        #expect(result.submitted == 1 && result.declined == 2 && result.skipped == 0)
        #expect(result.ending == .completed, "declining an optional question is no shortfall")
    }

    @Test func answersAreLaidOutByTheGroupsTheQuestionsCameIn() async throws {
        let details = #"""
            {"pages": [{"id": "P1", "title": "One", "questions": [{"id": "a", "heading": "A?", "answers": {"choices": [{"id": "c1"}]}},
                                                    {"id": "b", "heading": "B?"}]},
                       {"id": "P2", "title": "Two", "questions": [{"id": "c", "heading": "C?"}]}]}
            """#
        var shape = SurveyQuestion.Shape(list: try JSONPath(parsing: "$.pages[*].questions[*]"), text: try JSONPath(parsing: "heading"))
        var read = QuestionDetails.Shape()
        read.choices = .path(try JSONPath(parsing: "answers.choices"))
        read.group = QuestionDetails.Group(path: try JSONPath(parsing: "$.pages[*]"))
        shape.details = read
        let transport = ScriptedTransport { sent, _ in ok(sent.path == "/details" ? details : "{}") }
        let get = JourneyStep(Step("details"), call: .init(method: "GET", path: "/details"), questions: shape)
        var post = JourneyStep(
            Step("respond"), call: .init(method: "POST", path: "/responses"), body: #"{"pages": ${answers}}"#, runs: .perSurvey,
            answers: .list(item: #"{"id": ${question.id}, "answers": [{"text": ${answer}}]}"#))
        post.answersGroup = #"{"id": ${group.id}, "title": ${group.title}, "questions": ${answers}}"#
        var book = AnswerBook(fallback: ["t"])
        book.pickers[QuestionID("a")] = .choice([])
        book.types = [:]
        let result = try await walk([get, post], transport, answers: book)
        #expect(result.submitted == 3)
        #expect(
            transport.sent[1].body
                == #"{"pages": [{"id": "P1", "title": "One", "questions": [{"id": "a", "answers": [{"text": "c1"}]},"#
                + #"{"id": "b", "answers": [{"text": "t"}]}]},{"id": "P2", "title": "Two", "questions": [{"id": "c", "answers": [{"text": "t"}]}]}]}"#
        )
        // A group without a field its template uses breaks the contract, as a question does.
        var untitled = shape
        untitled.details?.group?.fields = ["title", "kind"]
        #expect(throws: SurveyQuestion.ContractError(description: "group P1 has no 'kind' (for ${group.kind})")) {
            try SurveyQuestion.list(from: Array(details.utf8), shape: untitled).get()
        }
    }

    @Test func aTypeShapesEachChosenValueAndTheLabelGoesWhereAsked() async throws {
        let page = #"""
            {"questions": [
              {"questionId": "m", "display": "", "kind": "multi", "choices": [{"id": "a", "label": "Apple"}, {"id": "b", "label": "Pear"}]},
              {"questionId": "s", "display": "", "kind": "single", "choices": [{"id": "x", "label": "Ex"}]}
            ]}
            """#
        let shape = Self.shape {
            $0.choices = .path(try! JSONPath(parsing: "choices"))
            $0.type = try! JSONPath(parsing: "kind")
        }
        let transport = ScriptedTransport { sent, _ in ok(sent.path == "/survey" ? page : "{}") }
        let read = JourneyStep(Step("read"), call: .init(method: "GET", path: "/survey"), questions: shape)
        let send = JourneyStep(
            Step("send"), call: .init(method: "POST", path: "/answers"), body: #"{"q": ${answers}}"#, runs: .perSurvey,
            answers: .list(item: #"{"id": ${question.id}, "answers": ${answer}}"#))
        var book = AnswerBook()
        book.types["multi"] = AnswerType(answer: .choices(2...2), each: #"{"choice_id": ${answer}}"#)
        book.types["single"] = AnswerType(answer: .choice([]), item: #"{"id": ${question.id}, "text": ${answer.label}}"#)
        _ = try await walk([read, send], transport, answers: book)
        #expect(
            transport.sent[1].body
                == #"{"q": [{"id": "m", "answers": [{"choice_id": "a"},{"choice_id": "b"}]},{"id": "s", "text": "Ex"}]}"#)
    }

    /// Nothing a hostile server lists may end a header line: a question's other field or a
    /// group's with CR/LF breaks the contract (as an id does), a choice id with one is refused,
    /// a label's line ends become spaces, an HTML choice whose value decodes to CR/LF is no choice.
    @Test func nothingTheSurveyListsEndsALine() throws {
        var fields = SurveyQuestion.Shape()
        fields.fields = ["gid"]
        let smuggled = #"[{"id": 1, "question": "a", "gid": "1\r\nHost: evil"}]"#
        #expect(throws: SurveyQuestion.ContractError(description: "question 1's 'gid' holds a control character")) {
            try SurveyQuestion.list(from: Array(smuggled.utf8), shape: fields).get()
        }
        var choices = Self.shape { $0.choices = .path(try! JSONPath(parsing: "choices")) }
        let labelled = #"{"questions": [{"questionId": "q", "display": "", "choices": [{"id": "a", "label": "Two\r\nlines"}]}]}"#
        #expect(try SurveyQuestion.list(from: Array(labelled.utf8), shape: choices).get()[0].details?.choices[0].label == "Two  lines")
        let badID = #"{"questions": [{"questionId": "q", "display": "", "choices": [{"id": "a\nb"}]}]}"#
        #expect(throws: SurveyQuestion.ContractError.self) { try SurveyQuestion.list(from: Array(badID.utf8), shape: choices).get() }
        choices.list = try JSONPath(parsing: "$.pages[*].questions[*]")
        choices.details?.group = QuestionDetails.Group(path: try JSONPath(parsing: "$.pages[*]"))
        choices.details?.group?.fields = ["title"]
        let group = #"{"pages": [{"id": "p", "title": "x\ny", "questions": [{"questionId": "q", "display": ""}]}]}"#
        #expect(throws: SurveyQuestion.ContractError(description: "group p's 'title' holds a control character")) {
            try SurveyQuestion.list(from: Array(group.utf8), shape: choices).get()
        }
        let page =
            #"<div id="q-1X1">?</div><input type="radio" name="1X1" value="A1&#13;&#10;X: y"><input type="radio" name="1X1" value="A2">"#
        #expect(HTMLChoices(page: page).details(of: "1X1")?.choices.map(\.id) == ["A2"])
    }

    @Test func anHTMLPagesInputsGiveEachFieldsChoicesTypeAndRequiredFlag() throws {
        let page = """
            <form><div id="q-1X1">Colour?</div>
            <input type="radio" name="1X1" value="A1" id="a1" required><label for="a1">Red <b>hot</b></label>
            <input type="radio" name="1X1" value="A2" id="a2"><label for="a2">Blue</label>
            <input type="radio" name="1X1" value="" id="a0"><label for="a0">No answer</label>
            <div id="q-1X2">Size?</div><select name="1X2"><option value="">Choose</option><option value="S">Small</option>
            <option value="L">Large &amp; more</option></select>
            <div id="q-1X3">Age?</div><input type="number" name="1X3" min="18" max="99"></form>
            """
        var shape = SurveyQuestion.Shape(pattern: try TextPattern(#"id="q-([0-9X]+)""#))
        var details = QuestionDetails.Shape()
        details.choices = .form
        shape.details = details
        let questions = try SurveyQuestion.list(from: Array(page.utf8), shape: shape).get()
        #expect(questions.map(\.id.text) == ["1X1", "1X2", "1X3"])
        #expect(questions[0].details?.choices == [.init(id: "A1", label: "Red hot"), .init(id: "A2", label: "Blue")])
        #expect(questions[0].details?.type == "radio" && questions[0].details?.required == true)
        #expect(questions[1].details?.choices == [.init(id: "S", label: "Small"), .init(id: "L", label: "Large & more")])
        #expect(questions[1].details?.type == "select" && questions[1].details?.required == nil)
        #expect(questions[2].details?.minimum == 18 && questions[2].details?.maximum == 99)
    }
}

/// The pickers on their own: seeded, reproducible, and as likely as their weights say.
@Suite struct AnswerPickerTests {
    static func question(_ choices: [String]) -> SurveyQuestion {
        var question = SurveyQuestion(id: QuestionID("q"), text: "?")
        var details = QuestionDetails()
        details.choices = choices.map { QuestionDetails.Choice(id: $0, label: "Label " + $0) }
        question.details = details
        return question
    }

    /// How often each choice is picked in `draws` draws.
    static func counts(_ picker: AnswerPicker, _ choices: [String], draws: Int, seed: UInt64 = 42) -> [String: Int] {
        var random = SplitMix64(seed: seed)
        var counts: [String: Int] = [:]
        let question = question(choices)
        for _ in 0..<draws {
            if case .answer(let given) = picker.pick(for: question, using: &random) { counts[given.text, default: 0] += 1 }
        }
        return counts
    }

    /// Pearson's chi-square of `counts` against `expected` proportions.
    static func chiSquare(_ counts: [String: Int], _ expected: [String: Double], draws: Int) -> Double {
        expected.reduce(0) { sum, entry in
            let want = entry.value * Double(draws)
            let got = Double(counts[entry.key] ?? 0)
            return sum + (got - want) * (got - want) / want
        }
    }

    @Test func aWeightedPickFollowsItsWeightsByChiSquare() {
        // A1 50%, the label "Label A2" 30%, the third by position 15%; the fourth gets what is left, 5%.
        let picker = AnswerPicker.choice([
            .init(.id("A1"), percent: 50), .init(.label("label a2"), percent: 30), .init(.position(3), percent: 15),
        ])
        let draws = 20_000
        let counts = Self.counts(picker, ["A1", "A2", "A3", "A4"], draws: draws)
        let chi = Self.chiSquare(counts, ["A1": 0.5, "A2": 0.3, "A3": 0.15, "A4": 0.05], draws: draws)
        // 3 degrees of freedom: 11.34 is the 99th percentile.
        #expect(chi < 11.34, "chi-square \(chi) for \(counts)")
        // And it can fail: the same counts against uniform weights are far off.
        #expect(Self.chiSquare(counts, ["A1": 0.25, "A2": 0.25, "A3": 0.25, "A4": 0.25], draws: draws) > 1000)
    }

    @Test func aUniformPickReachesEveryChoiceAsOften() {
        let draws = 12_000
        let counts = Self.counts(.choice([]), ["a", "b", "c"], draws: draws)
        #expect(Self.chiSquare(counts, ["a": 1.0 / 3, "b": 1.0 / 3, "c": 1.0 / 3], draws: draws) < 9.21)
    }

    @Test func theSameSeedPicksTheSame() {
        #expect(
            Self.counts(.choice([]), ["a", "b", "c"], draws: 50, seed: 9) == Self.counts(.choice([]), ["a", "b", "c"], draws: 50, seed: 9))
    }

    @Test func aPickByLabelTakesOnlyThatChoiceAndSaysWhenItIsNotListed() {
        var random = SplitMix64(seed: 1)
        let question = Self.question(["x", "y"])
        #expect(
            AnswerPicker.choice([.init(.label("LABEL Y"))]).pick(for: question, using: &random)
                == .answer(GivenAnswer(text: "y", json: nil, label: "Label y")))
        guard case .unanswerable = AnswerPicker.choice([.init(.label("none"))]).pick(for: question, using: &random) else {
            Issue.record("a label no choice has picks nothing")
            return
        }
    }

    @Test func kOfNPicksDistinctChoicesInTheSurveysOrder() {
        var random = SplitMix64(seed: 3)
        let question = Self.question(["a", "b", "c", "d"])
        for _ in 0..<200 {
            guard case .answer(let given) = AnswerPicker.choices(2...3).pick(for: question, using: &random) else {
                Issue.record("no answer")
                return
            }
            #expect((2...3).contains(given.values.count) && Set(given.values).count == given.values.count)
            #expect(given.values == given.values.sorted())
        }
    }

    @Test func wordsAreBetweenTheirBounds() {
        var random = SplitMix64(seed: 5)
        for _ in 0..<100 {
            guard case .answer(let given) = AnswerPicker.words(2...4).pick(for: SurveyQuestion(id: 1, text: ""), using: &random) else {
                Issue.record("no answer")
                return
            }
            #expect((2...4).contains(given.text.split(separator: " ").count))
        }
    }
}
