/// One step of a respondent's journey: a call it makes, with its retries, named. Reports,
/// thresholds and retry policies keep their figures per step, in the journey's order; the name
/// is how plans and reports refer to it (`retry.submit`, `submit.p95`, `endpoints.submit`).
public struct Step: Sendable, Hashable, CustomStringConvertible {
    /// The step's name: lower-case letters, digits and `_`, as plans write it.
    public let name: String

    /// The step called `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// The name.
    public var description: String { name }
}

/// The steps a respondent takes, in the order it takes them: the order of every report's rows,
/// charts and thresholds.
public struct Journey: Sendable, Hashable {
    /// The steps, in call order; each name once.
    public var steps: [JourneyStep]

    /// A journey of `steps`, in call order.
    public init(_ steps: [JourneyStep]) {
        self.steps = steps
    }

    /// The steps' names, in call order.
    public var names: [Step] { steps.map(\.step) }

    /// Every capture of every step, in order.
    public var captures: [SurveyAPI.Capture] { steps.flatMap(\.captures) }

    /// The question fields besides the id that the steps' templates use (`${question.gid}`),
    /// each once, in order: every question is read with them (`SurveyQuestion.fields`).
    public var questionFields: [String] {
        var fields: [String] = []
        for step in steps {
            let texts =
                [step.call.path, step.body ?? ""] + step.headers.map(\.value)
                + {
                    switch step.answers {
                    case .object(let key): [key, step.answersValue ?? ""]
                    case .list(let item): [item]
                    }
                }()
            for text in texts {
                guard let template = try? TextTemplate(parsing: text) else { continue }
                for case .questionField(let path) in template.variables where !fields.contains(path) { fields.append(path) }
            }
        }
        return fields
    }

    /// The group fields besides the id that the steps' `answers_group` use (`${group.title}`),
    /// each once, in order: every group is read with them (`QuestionDetails.Group.fields`).
    public var groupFields: [String] {
        var fields: [String] = []
        for step in steps {
            guard let text = step.answersGroup, let template = try? TextTemplate(parsing: text) else { continue }
            for case .groupField(let path) in template.variables where !fields.contains(path) { fields.append(path) }
        }
        return fields
    }

    /// The names the steps capture, each once, in the order they are first captured: a
    /// respondent's session holds a value for each. A step that captures a name again (a page
    /// loop's next page key) replaces its value.
    public var captureNames: [String] {
        var names: [String] = []
        for capture in captures where !names.contains(capture.name) { names.append(capture.name) }
        return names
    }
}

// The default journey: the survey API of `SurveyAPI`, which every plan without a journey of its
// own drives. Its steps are defined here, and only here.
extension Step {
    /// `SurveyAPI.login`, when the API has one: once per respondent, before the questions.
    public static let login = Step("login")
    /// `SurveyAPI.questions`: fetching the survey.
    public static let questions = Step("questions")
    /// `SurveyAPI.submit`: one answer, once per question.
    public static let submit = Step("submit")
}

extension Journey {
    /// Every step the default journey may take, in its order; the login only with
    /// `SurveyAPI.login` (`SurveyAPI.journey`).
    public static let defaultSteps: [Step] = [.login, .questions, .submit]
}

extension SurveyAPI {
    /// The default journey of this API: its login when it has one, with the captures; the
    /// questions, read in the survey contract's shape or the API's own; a submit per question.
    public var journey: Journey {
        var steps: [JourneyStep] = []
        // The login and the submit are retried after a timeout as they always were: a second
        // login opens a session the respondent then uses, and the survey contract stores an
        // answer by its question, once.
        if let login { steps.append(JourneyStep(.login, call: login, body: loginBody, captures: captures, idempotent: true)) }
        steps.append(
            JourneyStep(
                .questions, call: questions, questions: SurveyQuestion.Shape(list: questionsList, id: questionID, text: questionText)))
        steps.append(JourneyStep(.submit, call: submit, body: submitBody, runs: .perQuestion, idempotent: true))
        return Journey(steps)
    }
}

extension SurveyAPI {
    /// The call a step of the default journey makes; nil for the login of an API without one,
    /// and for a step that is not the default journey's.
    public func call(_ step: Step) -> Call? {
        switch step {
        case .login: login
        case .questions: questions
        case .submit: submit
        default: nil
        }
    }
}
