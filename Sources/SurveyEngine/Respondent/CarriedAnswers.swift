import SurveyJourney
import SurveyWire

/// The questions a call per survey or per page was planned with, and which of them its request
/// carries an answer for (and which the respondent chose to skip): what the call's end needs to
/// count each answer as answered or unanswered, after a page loop's response has already put the
/// next page's questions in the respondent's place.
///
/// Two bits a question, in words reused from one call to the next: a page of hundreds of
/// questions costs a few words, and the respondent allocates it once.
///
/// `@unchecked Sendable`: one respondent owns it (`Respondent.kept`), and only that
/// respondent's task touches it, one call after another.
final class CarriedAnswers: @unchecked Sendable {
    /// The questions the call was planned with (the respondent's, shared, not copied).
    private(set) var questions: [SurveyQuestion] = []
    /// Bit `i % 64` of word `i / 64`: the `i`-th question's answer is in the request.
    private var given: [UInt64] = []
    /// Likewise: the respondent chose not to answer the `i`-th question.
    private var chosenSkips: [UInt64] = []

    /// Starts a call planned with `questions`: no answer given yet.
    func start(_ questions: [SurveyQuestion]) {
        self.questions = questions
        let words = (questions.count + 63) / 64
        if given.count == words {
            for word in given.indices {
                given[word] = 0
                chosenSkips[word] = 0
            }
        } else {
            given = Array(repeating: 0, count: words)
            chosenSkips = given
        }
    }

    /// The `index`-th question's answer is in the request.
    func give(_ index: Int) {
        guard index >= 0, index < questions.count else { return }
        given[index >> 6] |= 1 << UInt64(index & 63)
    }

    /// The respondent chose not to answer the `index`-th question.
    func decline(_ index: Int) {
        guard index >= 0, index < questions.count else { return }
        chosenSkips[index >> 6] |= 1 << UInt64(index & 63)
    }

    /// The ids of the questions whose answer the request carries, in order.
    var answeredIDs: some Sequence<QuestionID> {
        questions.indices.lazy.filter { self.has(self.given, $0) }.map { self.questions[$0].id }
    }

    /// The ids of the questions left out for want of an answer: neither given nor skipped by
    /// choice.
    var unansweredIDs: some Sequence<QuestionID> {
        questions.indices.lazy.filter { !self.has(self.given, $0) && !self.has(self.chosenSkips, $0) }.map { self.questions[$0].id }
    }

    /// Forgets the questions, keeping the words for the next call.
    func finish() {
        questions = []
    }

    private func has(_ bits: [UInt64], _ index: Int) -> Bool {
        bits[index >> 6] & (1 << UInt64(index & 63)) != 0
    }
}

/// What the step under way keeps from one call to the next, in one word of the respondent: a
/// step per question's own head (`Respondent.perQuestionHead`), or the answers a call per survey
/// or per page carries (`CarriedAnswers`). Never both at once: a step is one kind or the other.
enum StepKeeps: Sendable {
    case nothing
    case head(HTTPRequest.Template)
    case answers(CarriedAnswers)
}
