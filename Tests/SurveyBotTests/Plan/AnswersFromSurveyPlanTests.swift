import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney

/// Answers read from the survey, as a plan writes them: the pickers, `types`, `skip_optional`,
/// the details a step reads with its questions, groups — and each mistake at its place.
@Suite struct AnswersFromSurveyPlanTests {
    /// A Qualtrics-like journey that reads choices, types, required flags and bounds.
    static func plan(answers: [String] = [], types: [String] = [], extra: [String] = []) -> String {
        ([
            "target: http://127.0.0.1:9",  // 1
            "respondents: 1",
            "journey:",
            "  start:",
            "    request: POST /sessions",  // 5
            "    questions: $.questions",
            "    question_id: questionId",
            "    question_text: display",
            "    question_choices: choices",
            "    choice_label: choiceText",  // 10
            "    question_type: type",
            "    question_required: required",
            "    question_min: min",
            "    question_max: max",
            "  page:",  // 15
            "    request: POST /sessions/1",
            "    runs: per_survey",
            "    body: '{\"responses\": ${answers}}'",
        ] + extra + ["answers:"] + (answers.isEmpty ? ["  \"*\": ok"] : answers) + (types.isEmpty ? [] : ["types:"] + types))
        .joined(separator: "\n") + "\n"
    }

    @Test func everyPickerReadsAsWritten() throws {
        let plan = try #require(
            expectPlan(
                Self.plan(answers: [
                    "  q1: choice()", "  q2: choice(A1 40%, @2 10%, \"Very good\" 20%)", "  q3: choice(\"Blue\")", "  q4: choices(1..3)",
                    "  q5: number()", "  q6: number(-5..5)", "  q7: words(2..8)", "  q8: skip()", "  q9: \"choice()\"", "  q10: plain",
                ])))
        let book = plan.run.answers
        #expect(book.pickers[QuestionID("q1")] == .choice([]))
        #expect(
            book.pickers[QuestionID("q2")]
                == .choice([.init(.id("A1"), percent: 40), .init(.position(2), percent: 10), .init(.label("Very good"), percent: 20)]))
        #expect(book.pickers[QuestionID("q3")] == .choice([.init(.label("Blue"))]))
        #expect(book.pickers[QuestionID("q4")] == .choices(1...3))
        #expect(book.pickers[QuestionID("q5")] == .number(nil))
        #expect(book.pickers[QuestionID("q6")] == .number(-5...5))
        #expect(book.pickers[QuestionID("q7")] == .words(2...8))
        #expect(book.pickers[QuestionID("q8")] == .skip)
        #expect(book.byQuestion[QuestionID("q9")] == ["choice()"], "quoted, a value as written")
        #expect(book.byQuestion[QuestionID("q10")] == ["plain"])
        let shape = try #require(plan.run.declaredJourney?.steps[0].questions?.details)
        #expect(shape.choices == .path(JSONPath(names: ["choices"])))
        #expect(shape.choiceLabel == JSONPath(names: ["choiceText"]) && shape.choiceID == JSONPath(names: ["id"]))
        #expect(shape.type == JSONPath(names: ["type"]) && shape.required == JSONPath(names: ["required"]))
        #expect(shape.minimum == JSONPath(names: ["min"]) && shape.maximum == JSONPath(names: ["max"]))
    }

    @Test func typesAndSkippingReadAsWritten() throws {
        let plan = try #require(
            expectPlan(
                Self.plan(
                    types: [
                        "  MC:", "    answer: choice()", "    value: '{${answer}: {\"selected\": true}}'", "  TE:",
                        "    answer: words(1..3)",
                    ],
                    extra: []) + "skip_optional: 25%\n"))
        #expect(plan.run.answers.types["MC"] == AnswerType(answer: .choice([]), value: #"{${answer}: {"selected": true}}"#))
        #expect(plan.run.answers.types["TE"] == AnswerType(answer: .words(1...3)))
        #expect(plan.run.answers.skipOptional == 0.25)
    }

    /// An answer that goes into a header cannot end its line, whether the plan writes it or the
    /// environment gives it.
    @Test func anAnswerInAHeaderHoldsNoLineEnd() {
        let text = lines(
            "target: http://127.0.0.1:9",  // 1
            "journey:",
            "  fetch:",
            "    request: GET /q",
            "    questions: $",  // 5
            "  send:",
            "    request: POST /a",
            "    runs: per_question",
            "    headers:",
            "      X-Answer: ${answer}",  // 10
            "answers:",
            "  q1: \"fine\"",
            "  \"*\": ${SMUGGLED}")
        expectSingleError(
            text, line: 11, column: 1, contains: "'answers.*' holds a line feed (\\n), which cannot go in the header X-Answer",
            environment: ["SMUGGLED": "a\nGET /evil HTTP/1.1"])
        #expect(expectPlan(text, environment: ["SMUGGLED": "plain"]) != nil)
    }

    @Test func aStarAnswerReadFromTheSurveyIsAStarAnswer() throws {
        let plan = try #require(expectPlan(Self.plan(answers: ["  \"*\": choice()"])))
        #expect(plan.run.answers.fallbackPicker == .choice([]) && plan.warnings.isEmpty, "no warning that '*' is missing")
    }

    @Test func aBadPickerIsAnErrorAtItsPlace() {
        // At the picker's name when it is unknown, inside its parentheses otherwise, at the item at fault.
        expectSingleError(
            Self.plan(answers: ["  q1: choice(A1 70%, A2 40%)"]), line: 20, column: 14, contains: "the weights add up to 110%, over 100%")
        expectSingleError(
            Self.plan(answers: ["  q1: choice(A1 70%, A2)"]), line: 20, column: 14, contains: "give every choice a weight, or none")
        expectSingleError(Self.plan(answers: ["  q1: choice(A1, 40%)"]), line: 20, column: 18, contains: "a weight is a percentage")
        expectSingleError(Self.plan(answers: ["  q1: choice(A1, two words)"]), line: 20, column: 18, contains: "expected a choice")
        expectSingleError(Self.plan(answers: ["  q1: choices(0..500)"]), line: 20, column: 15, contains: "from 1 to 100")
        expectSingleError(Self.plan(answers: ["  q1: choise()"]), line: 20, column: 7, contains: "did you mean 'choice()'?")
        expectSingleError(Self.plan(answers: ["  q1: number(9..1)"]), line: 20, column: 14, contains: "9..1 is empty")
        expectSingleError(Self.plan(answers: ["  q1: choice(@0)"]), line: 20, column: 14, contains: "a position is @ and a number from 1")
    }

    @Test func aPickerWithoutWhatItNeedsIsAnErrorAtIt() {
        let noChoices = lines(
            "target: http://127.0.0.1:9",  // 1
            "journey:",
            "  start:",
            "    request: GET /q",
            "    questions: $",  // 5
            "  send:",
            "    request: POST /a",
            "    runs: per_question",
            "answers:",
            "  \"*\": choice()",  // 10
            "  n: number()")
        let errors = expectErrors(noChoices)
        #expect(errors.count == 2)
        #expect(
            errors.contains {
                $0.location.line == 10 && $0.message.contains("no step reads them: give the step with 'questions' a 'question_choices'")
            })
        #expect(errors.contains { $0.location.line == 11 && $0.message.contains("give 'question_min' and 'question_max'") })
        expectSingleError(
            noChoices.replacingOccurrences(
                of: "answers:\n  \"*\": choice()\n  n: number()\n", with: "types:\n  MC:\n    answer: words(1..2)\n"),
            line: 10, column: 3, contains: "no step reads it: give the step with 'questions' a 'question_type'")
    }

    @Test func detailsAndGroupsGoWhereTheyCan() {
        expectSingleError(
            Self.plan(extra: ["    question_choices: choices"]), line: 19, column: 5,
            contains: "'journey.page.question_choices' needs 'journey.page.questions'")
        let regex = Self.plan().replacingOccurrences(of: "questions: $.questions", with: "questions: 'regex id=\"(q[0-9]+)\"'")
        let errors = expectErrors(regex)
        #expect(errors.contains { $0.message.contains("'journey.start.question_id' and 'question_text' go with a JSON path") })
        #expect(errors.contains { $0.message.contains("'journey.start.question_choices' with a regex in 'questions' is 'form'") })
        expectSingleError(
            Self.plan(extra: ["    answers_group: '{\"id\": ${group.id}, \"q\": ${answers}}'"]), line: 19, column: 5,
            contains: "no step reads the groups: give the step with 'questions' a 'question_group'")
        let group = Self.plan().replacingOccurrences(
            of: "    question_max: max\n", with: "    question_max: max\n    question_group: $.pages[*]\n")
        expectSingleError(group, line: 15, column: 21, contains: "must be a parent of the questions' path")
        expectSingleError(
            Self.plan(extra: ["    headers:", "      X-Page: ${group.id}"]), line: 20, column: 15,
            contains: "${group.id} can only be used in the 'answers_group'")
    }

    @Test func aTypesShapeIsCheckedAsJSONAndForWhereItGoes() {
        expectSingleError(
            Self.plan(types: ["  MC:", "    answer: choice()", "    item: '{\"id\": ${question.id}}'"]), line: 24, column: 5,
            contains: "no step lays out ${answers} as a list")
        expectSingleError(
            Self.plan(types: ["  MC:", "    answer: choice()", "    value: '{${answer}: '"]), line: 24, column: 12,
            contains: "is not JSON once its variables are filled in")
        expectSingleError(Self.plan(types: ["  MC:", "    value: '${answer}'"]), line: 22, column: 3, contains: "needs an 'answer'")
    }

    @Test func theDigestChangesWithWhatIsReadFromTheSurvey() throws {
        let base = try #require(expectPlan(Self.plan(answers: ["  q1: choice()"])))
        let weighted = try #require(expectPlan(Self.plan(answers: ["  q1: choice(A1 50%)"])))
        let label = try #require(expectPlan(Self.plan(answers: ["  q1: choice()"]).replacingOccurrences(of: "choiceText", with: "text")))
        #expect(base.digest != weighted.digest)
        #expect(base.digest != label.digest)
    }
}
