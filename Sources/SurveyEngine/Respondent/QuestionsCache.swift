import SurveyJourney
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The last few questions bodies each lane parsed, with the step that read each and its
/// questions: respondents nearly always receive the same lists — one, or a page loop's few
/// pages — and comparing bytes costs far less than parsing JSON again. Each question read is
/// given its `AnswerPlan` then, once for every respondent that receives the same list.
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
    /// The run's answers, which the plans are worked out from.
    private let answers: AnswerBook

    /// A cache with one slot per lane (at least one), planning the questions' answers by `answers`.
    init(lanes: Int, answers: AnswerBook) {
        slots = (0..<max(1, lanes)).map { _ in Slot() }
        self.answers = answers
    }

    /// The questions `step` reads in `body` (by its shape; a page loop's last page lists none),
    /// or the reason it breaks the survey contract.
    func questions(in body: [UInt8], step: CompiledStep, lane: Int) -> Result<[SurveyQuestion], SurveyQuestion.ContractError> {
        let slot = slots[lane % slots.count]
        let position = step.position
        if let hit = slot.entries.withLock({ $0.list.first { $0.step == position && Self.same($0.body, body) }?.questions }) {
            return .success(hit)
        }
        var parsed = SurveyQuestion.list(from: body, shape: step.questions ?? .contract, page: step.runner.pages)
        if case .success(var questions) = parsed {
            for index in questions.indices { questions[index].answerPlan = answers.plan(for: questions[index]) }
            parsed = .success(questions)
            slot.entries.withLock { entries in
                let entry = Entry(step: position, body: body, questions: questions)
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

    /// Whether two bodies are the same bytes: by length, then one `memcmp`. Every respondent's
    /// questions body is compared so; an array's `==` went element by element, seven
    /// instructions a byte.
    private static func same(_ kept: [UInt8], _ body: [UInt8]) -> Bool {
        let count = kept.count
        guard count == body.count else { return false }
        return kept.withUnsafeBufferPointer { kept in
            body.withUnsafeBufferPointer { body in
                guard let kept = kept.baseAddress, let body = body.baseAddress else { return true }
                return memcmp(kept, body, count) == 0
            }
        }
    }
}
