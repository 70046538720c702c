/// What walks a kind of step (`JourneyStep.Runs`), as far as the journey's readers need to
/// know: what its requests carry of the respondent's answers, and whether it loops over pages.
/// The engine's runners refine it with the walk itself (`StepRunner`, `Respondent/*Runner.swift`).
public protocol StepWalker: SendableMetatype {
    /// What the step's requests carry of the respondent's answers.
    static var answers: AnswersCarried { get }
    /// Whether it is a page loop: its response lists the next page's questions, the last none.
    static var pages: Bool { get }
}

extension StepWalker {
    /// None of the answers, by default: a step run once.
    public static var answers: AnswersCarried { .none }
    /// Not a page loop, by default.
    public static var pages: Bool { false }
}

/// What a step's requests carry of the respondent's answers: what its templates may use.
public enum AnswersCarried: Sendable {
    /// None: a step run once.
    case none
    /// One question's (`${question.id}`, `${question.…}`, `${answer}`): a call per question.
    case one
    /// Every answer at once (`${answers}`), laid out by the step's `answers`.
    case all
}
