import SurveyJourney
import Synchronization

/// The last few questions bodies each lane parsed, with the step that read each and its
/// questions: respondents nearly always receive the same lists — one, or a page loop's few
/// pages — and comparing bytes costs far less than parsing JSON again.
final class QuestionsCache: Sendable {
    private struct Entry {
        var step: Int
        var body: [UInt8]
        var questions: [SurveyQuestion]
    }

    private final class Slot: Sendable {
        /// The entries, and where the next one goes when they are full.
        let entries = Mutex<(list: [Entry], next: Int)>(([], 0))
    }

    /// The bodies kept per lane: a survey of as many pages is parsed once a lane.
    private static let entries = 8

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
        if let hit = slot.entries.withLock({ $0.list.first { $0.step == step && $0.body == body }?.questions }) {
            return .success(hit)
        }
        let parsed = SurveyQuestion.list(from: body, shape: shapes[step] ?? .contract, page: pages[step])
        if case .success(let questions) = parsed {
            slot.entries.withLock { entries in
                let entry = Entry(step: step, body: body, questions: questions)
                if entries.list.count < Self.entries {
                    entries.list.append(entry)
                } else {
                    entries.list[entries.next] = entry
                    entries.next = (entries.next + 1) % Self.entries
                }
            }
        }
        return parsed
    }
}
