import SurveyJourney
import SurveyMetrics

/// One step of a run's journey, compiled once: all a respondent needs to walk it — its runner,
/// its request (`SurveyRequests.Recipe`: the head or its template, the body and its kind, the
/// answers' layout, the session it uses), its captures and their slots in the session, its
/// checks, retry policy, think time, timeout and questions. The walk refers to a step by its
/// position, and finds everything of it here. A class, so that a reference to it, not a copy,
/// is what a function holds.
final class CompiledStep: Sendable {
    /// Its name.
    let step: Step
    /// Its position in the journey: what a `Respondent.NextCall` and the questions cache name.
    let position: Int
    /// What walks it (`JourneyStep.runs`).
    let runner: any StepRunner.Type
    /// Its request.
    let request: SurveyRequests.Recipe
    /// What its 2xx response gives the respondent's session, and each one's slot in
    /// `Respondent.session`.
    let captures: [SurveyAPI.Capture]
    let captureSlots: [Int]
    /// What its response must be to count as a success: a 2xx when nil.
    let expect: ResponseExpectation?
    /// Its calls' retry policy.
    let retry: RetryPolicy
    /// Its own think time; nil where it has none.
    let think: ThinkTime?
    /// Its own timeout per attempt in nanoseconds (`HTTPRequest.timeout`); 0 where it has none,
    /// and the client's applies.
    let timeout: UInt64
    /// Where its response lists the questions, with the journey's question fields; nil for none.
    let questions: SurveyQuestion.Shape?
    /// Whether it runs after an abandonment too.
    let always: Bool
    /// Whether an attempt whose request may have reached the server may be sent again.
    let idempotent: Bool
    /// For a page loop, how many pages it posts at most.
    let pages: Int
    /// Why a respondent is abandoned when the step, run once, still fails after its retries.
    let abandonReason: AbandonReason
    /// Whether its response is judged by its status alone: no expectation, no questions, no
    /// captures — a 2xx is a success, and nothing of the response is read.
    let readsNothing: Bool

    /// `step`, the `position`-th of `journey` in `configuration`, sending `request`.
    init(_ step: JourneyStep, at position: Int, of journey: Journey, request: SurveyRequests.Recipe, _ configuration: RunConfiguration) {
        self.step = step.step
        self.position = position
        guard let runner = step.runs.runner as? any StepRunner.Type else {
            preconditionFailure("the kind of step '\(step.runs.rawValue)' has no runner: its walker must be a StepRunner")
        }
        self.runner = runner
        self.request = request
        captures = step.captures
        let names = journey.captureNames
        captureSlots = step.captures.map { names.firstIndex(of: $0.name) ?? 0 }
        expect = step.expect
        retry = configuration.retry[step.step]
        think = step.think
        timeout = step.timeout.map { max(1, $0.clampedNanoseconds) } ?? 0
        questions = step.questions.map { shape in
            var shape = shape
            shape.fields = journey.questionFields
            shape.details?.group?.fields = journey.groupFields
            return shape
        }
        always = step.always
        idempotent = step.idempotent
        pages = step.pages
        abandonReason = step.abandonReason
        readsNothing = expect == nil && questions == nil && captures.isEmpty
    }

    /// The steps of `configuration`'s journey, each sending its request of `requests`.
    static func journey(of configuration: RunConfiguration, _ requests: SurveyRequests) -> [CompiledStep] {
        let journey = configuration.journey
        return zip(journey.steps, requests.recipes).enumerated().map { position, step in
            CompiledStep(step.0, at: position, of: journey, request: step.1, configuration)
        }
    }
}
