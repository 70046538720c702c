import Testing

@testable import SurveyBot

/// `builtin.survey: typed`: the shapes it goes with, the questions it sets by itself, and the
/// answers a plan must give it (its required questions).
@Suite struct PlanTypedSurveyTests {
    static let journey = lines(
        "journey:", "  start:", "    request: POST /sessions", "    questions: $.questions", "    question_text: text",
        "    capture:", "      s: $.session", "  page:", "    request: POST /sessions/${session.s}", "    runs: per_page",
        "    questions: $.questions", "    question_text: text")

    static let required = lines("answers:", "  q1: c1", "  q3: \"7\"", "  q5: why", "  q6: c2")

    @Test func theTypedSurveyGoesWithTheContractPagesAndOnePostShapes() throws {
        let plan = try #require(expectPlan(Self.journey + Self.required + lines("builtin:", "  api: pages", "  survey: typed")))
        #expect(plan.builtin.survey == .typed && plan.builtin.api == .pages)
        #expect(
            expectPlan(Self.journey + Self.required + lines("builtin:", "  api: one_post", "  survey: typed"))?.builtin.survey == .typed)
        let plain = expectPlan(Self.journey + Self.required + lines("builtin:", "  api: pages", "  survey: plain", "  questions: 1"))
        #expect(plain?.builtin.survey == .plain)
        expectSingleError(
            Self.journey + Self.required + lines("builtin:", "  api: jsonrpc", "  survey: typed"), line: 20, column: 11,
            contains: "'builtin.survey: typed' goes with 'builtin.api: contract', 'pages', 'one_post' or 'html', not 'jsonrpc'")
        // The default journey speaks the contract's API.
        let contract = expectPlan(Self.required + lines("builtin:", "  survey: typed"))
        #expect(contract?.builtin.survey == .typed && contract?.builtin.api == .contract)
    }

    @Test func theTypedSurveyHasQuestionsOfItsOwn() {
        expectSingleError(
            Self.journey + Self.required + lines("builtin:", "  api: pages", "  survey: typed", "  questions: 5"), line: 21, column: 3,
            contains: "'builtin.questions' goes with 'builtin.survey: plain': the typed survey has questions of its own")
    }

    @Test func onlyTheTypedSurveysRequiredQuestionsNeedAnAnswer() throws {
        let base = Self.journey + lines("builtin:", "  api: pages", "  survey: typed")
        let plan = try #require(expectPlan(base + Self.required))
        #expect(plan.warnings.isEmpty, "\(plan.warnings.map(\.message))")
        expectSingleError(
            base + lines("answers:", "  q1: c1", "  q3: \"7\""), line: 16, column: 1,
            contains: "no answer for questions q5, q6 required by the builtin server's typed survey, and no \"*\" answer for the rest")
        let stray = try #require(expectPlan(base + Self.required + lines("  q9: x")))
        #expect(
            stray.warnings.map(\.message) == [
                "'answers.q9' answers question q9, but the builtin server asks questions q1–q8: it is never used"
            ])
    }

    /// The `html` shape's pages name each type by its kind of input, and give a number's bounds
    /// with its input: what `question_choices: form` reads.
    @Test func theHTMLPagesAreAnsweredByTheirInputsKindsAndBounds() throws {
        let page = lines(
            "journey:", "  open:", "    request: GET /survey", "    questions: regex id=\"question-(q[0-9]+)\"",
            "    question_choices: form", "    capture:", "      form: form *", "  page:", "    request: POST /survey",
            "    runs: per_page", "    form:", "      \"*\": ${session.form}", "    questions: regex id=\"question-(q[0-9]+)\"",
            "    question_choices: form", "    capture:", "      form: form *")
        let types = lines(
            "answers:", "  q1: c1", "types:", "  radio:", "    answer: choice()", "  number:", "    answer: number()", "  textarea:",
            "    answer: words(2..4)")
        let plan = try #require(expectPlan(page + types + lines("builtin:", "  api: html", "  survey: typed")))
        #expect(plan.builtin.api == .html && plan.warnings.isEmpty, "\(plan.warnings.map(\.message))")
        // Without the number input's type, q3 (required) has no answer.
        let noNumber = types.replacingOccurrences(of: "  number:\n    answer: number()\n", with: "")
        expectSingleError(
            page + noNumber + lines("builtin:", "  api: html", "  survey: typed"), line: 17, column: 1,
            contains: "no answer for question q3 required by the builtin server's typed survey")
    }

    @Test func theHTMLExamplePlanIsValid() throws {
        let plan = try PlanLoader(environment: [:]).load(path: repositoryPath("plans/html-pages.plan")).get()
        #expect(plan.builtin.api == .html && plan.builtin.survey == .typed)
        #expect(plan.warnings.isEmpty, "\(plan.warnings.map(\.message))")
    }

    @Test func theExamplePlanIsValid() throws {
        let result = PlanLoader(environment: [:]).load(path: repositoryPath("plans/builtin-typed.plan"))
        let plan = try result.get()
        #expect(plan.builtin.survey == .typed)
        #expect(plan.warnings.isEmpty, "\(plan.warnings.map(\.message))")
        // A report says which survey the builtin server asked.
        #expect(RunReport.PlanRecord(plan).builtin == "8 typed questions, fail 10%, api pages")
    }
}
