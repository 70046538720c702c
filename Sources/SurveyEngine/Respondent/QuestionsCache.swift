import Synchronization

/// The last questions body each lane parsed, with the step that read it and its questions:
/// respondents nearly always receive the same list, and comparing bytes costs far less than
/// parsing JSON again.
final class QuestionsCache: Sendable {
    private final class Slot: Sendable {
        let last = Mutex<(step: Int, body: [UInt8], questions: [SurveyQuestion])?>(nil)
    }

    private let slots: [Slot]
    /// Each step's shape, by position; nil for a step that reads no questions.
    private let shapes: [SurveyQuestion.Shape?]
    /// Whether each step is a page loop's, by position: its last page lists none.
    private let pages: [Bool]

    /// A cache with one slot per lane (at least one), reading the questions of each step's shape.
    init(lanes: Int, shapes: [SurveyQuestion.Shape?], pages: [Bool]) {
        slots = (0..<max(1, lanes)).map { _ in Slot() }
        self.shapes = shapes
        self.pages = pages
    }

    /// The questions step `step` reads in `body`, or the reason it breaks the survey contract.
    func questions(in body: [UInt8], step: Int, lane: Int) -> Result<[SurveyQuestion], SurveyQuestion.ContractError> {
        let slot = slots[lane % slots.count]
        if let hit = slot.last.withLock({ last in last.flatMap { $0.step == step && $0.body == body ? $0.questions : nil } }) {
            return .success(hit)
        }
        let parsed = SurveyQuestion.list(from: body, shape: shapes[step] ?? .contract, page: pages[step])
        if case .success(let questions) = parsed {
            slot.last.withLock { $0 = (step, body, questions) }
        }
        return parsed
    }
}
