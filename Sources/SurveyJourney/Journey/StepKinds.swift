/// The kinds of step survey-bot walks: their names, docs and what their requests carry, here
/// where the default journey and the plan reader can name them. The engine walks each with the
/// runner of the same name (`Respondent/*Runner.swift`); a kind of the engine's own or of a test
/// declares its runner and its `Runs` in one file there.
extension JourneyStep.Runs {
    /// survey-bot's kinds, in the order the docs list them.
    package static let builtIn: [JourneyStep.Runs] = [.once, .perQuestion, .perSurvey, .perPage]

    /// The kinds a plan may name (`init(rawValue:)`, `allCases`): `builtIn`, and in a test more,
    /// for as long as it says (`JourneyStep.Runs.$registered.withValue(…)`).
    @TaskLocal package static var registered: [JourneyStep.Runs] = builtIn
}

extension JourneyStep.Runs {
    /// Once per respondent: a login, fetching the survey, a logout.
    public static let once = JourneyStep.Runs(
        "once", runner: OnceRunner.self, doc: "once per respondent (a login, opening the survey, a logout)")
}

/// What walks a step run once; the engine gives it its walk (`OnceRunner: StepRunner`).
public enum OnceRunner: StepWalker {}

extension JourneyStep.Runs {
    /// Once per question the respondent answers, in the order it walks them, each after its
    /// think time and `pace`: today's submit. The answers of a run are these calls.
    public static let perQuestion = JourneyStep.Runs(
        "per_question", runner: PerQuestionRunner.self,
        doc: "once for each question the respondent answers, after its `think` time and `pace` — the submits, counted as the "
            + "run's answers")
}

/// What walks a step per question; the engine gives it its walk (`PerQuestionRunner: StepRunner`).
public enum PerQuestionRunner: StepWalker {
    /// What its requests carry of the answers.
    public static var answers: AnswersCarried { .one }
}

extension JourneyStep.Runs {
    /// Once per respondent, after it has thought over every question: one request carrying
    /// every answer (`${answers}` in its body), for APIs that take a whole response at once.
    /// Its answers count as submitted, or unanswered, together.
    public static let perSurvey = JourneyStep.Runs(
        "per_survey", runner: PerSurveyRunner.self,
        doc: "once, after the think time of every question, with every answer in its body (`${answers}`)")
}

/// What walks a step per survey; the engine gives it its walk (`PerSurveyRunner: StepRunner`).
public enum PerSurveyRunner: StepWalker {
    /// What its requests carry of the answers.
    public static var answers: AnswersCarried { .all }
}

extension JourneyStep.Runs {
    /// Once per page of questions, with that page's answers (`${answers}`), after the think
    /// time of each: its response lists the next page's questions (`questions`), and it runs
    /// again while one does, `pages` times at most. The first page is the questions a step
    /// before it read.
    public static let perPage = JourneyStep.Runs(
        "per_page", runner: PerPageRunner.self,
        doc: "a page loop, once per page of questions with that page's answers, its response giving the next page's `questions` "
            + "(and captures), again while a response lists questions, `pages` times at most")
}

/// What walks a page loop; the engine gives it its walk (`PerPageRunner: StepRunner`).
public enum PerPageRunner: StepWalker {
    /// What its requests carry of the answers.
    public static var answers: AnswersCarried { .all }
    /// Whether it is a page loop.
    public static var pages: Bool { true }
}
