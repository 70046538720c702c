import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// How a question is answered, worked out once per survey read (`AnswerPlan`): shared by every
/// respondent that reads the same questions, and drawing, for the same draws, what weighing and
/// shuffling the question's choices on every answer drew.
@Suite struct AnswerPlanTests {
    static let typed = #"""
        [{"id": 1, "question": "Colour?", "type": "single", "choices": [{"id": "c1", "label": "Red"}, {"id": 2, "label": "Blue"}]},
         {"id": 2, "question": "Why?", "type": "text"},
         {"id": 3, "question": "Other?"}]
        """#

    /// A run's context whose one step reads `typed`'s questions with their types and choices.
    func context(_ answers: AnswerBook) throws -> SurveyContext {
        var details = QuestionDetails.Shape()
        details.choices = .path(try JSONPath(parsing: "choices"))
        details.type = try JSONPath(parsing: "type")
        var shape = SurveyQuestion.Shape()
        shape.details = details
        let journey = Journey([JourneyStep(Step("read"), call: .init(method: "GET", path: "/s"), questions: shape)])
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: answers)
        configuration.declaredJourney = journey
        return SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target), seed: 1,
            transport: ScriptedTransport { _, _ in ok() }, clock: VirtualClock().clock,
            recorder: MetricsRecorder(lanes: 1, steps: journey.names), interruption: OnceFlag(), runStart: 1_000_000_000)
    }

    @Test func aSurveyReadGivesEachQuestionItsPlanOnceForEveryRespondent() throws {
        var book = AnswerBook(fallback: ["fine"])
        book.types["single"] = AnswerType(answer: .choice([.init(.id("c1"), percent: 70)]))
        book.types["text"] = AnswerType(answer: .words(1...3))
        let context = try context(book)
        let body = Array(Self.typed.utf8)
        let first = try context.questionsCache.questions(in: body, step: context.steps[0], lane: 0).get()
        let again = try context.questionsCache.questions(in: body, step: context.steps[0], lane: 0).get()
        #expect(first.map { $0.answerPlan?.picker } == [book.types["single"]?.answer, .words(1...3), .fixed(["fine"])])
        #expect(first.map { $0.answerPlan?.byType } == [true, true, false])
        for (one, other) in zip(first, again) {
            #expect(one.answerPlan != nil && one.answerPlan === other.answerPlan, "worked out once, shared")
        }
        // What a plan is made of is no part of the question: it equals the one read without.
        let plain = try SurveyQuestion.list(from: body, shape: context.steps[0].questions!).get()
        #expect(plain.allSatisfy { $0.answerPlan == nil })
        #expect(first == plain)
        #expect(Set(first) == Set(plain))
    }

    /// The position `items` pick among `choices` from `random`, weighed on every answer as the
    /// picker did before plans: the reference the plan's draw must match.
    static func weighed(_ items: [AnswerPicker.ChoiceWeight], _ choices: [String], _ random: inout SplitMix64) -> Int {
        func weight(_ index: Int) -> Double? {
            items.first { item in
                switch item.selector {
                case .id(let id): choices[index] == id
                case .label(let label): ("Label " + choices[index]).lowercased() == label.lowercased()
                case .position(let position): index == position - 1
                }
            }.map { $0.percent ?? 0 }
        }
        var given = 0.0
        var unnamed = 0
        for index in choices.indices {
            if let named = weight(index) { given += named } else { unnamed += 1 }
        }
        let share = unnamed > 0 ? max(0, 100 - given) / Double(unnamed) : 0
        let total = given + share * Double(unnamed)
        let draw = Double(random.next() >> 11) * 0x1p-53 * total
        var sum = 0.0
        var last = 0
        for index in choices.indices {
            let weight = weight(index) ?? share
            guard weight > 0 else { continue }
            sum += weight
            last = index
            if draw < sum { return index }
        }
        return last
    }

    @Test func aPlannedWeightedChoiceDrawsWhatWeighingEveryAnswerDrew() {
        let choices = ["A1", "A2", "A3", "A4", "A5"]
        let pickers: [[AnswerPicker.ChoiceWeight]] = [
            [.init(.id("A1"), percent: 40), .init(.id("A2"), percent: 30)],
            [.init(.label("Label A3"), percent: 0), .init(.position(1), percent: 12.5), .init(.id("A9"), percent: 50)],
            [.init(.id("A2"), percent: 100)],
            [.init(.id("A4"), percent: 33.3), .init(.id("A4"), percent: 5), .init(.position(5), percent: 0.1)],
        ]
        let question = AnswerPickerTests.question(choices)
        for items in pickers {
            var planned = SplitMix64(seed: 77)
            var reference = SplitMix64(seed: 77)
            for _ in 0..<2_000 {
                guard case .answer(let given) = AnswerPicker.choice(items).pick(for: question, using: &planned) else {
                    Issue.record("no answer for \(items)")
                    return
                }
                #expect(given.text == choices[Self.weighed(items, choices, &reference)], "\(items)")
            }
        }
    }

    @Test func aPlannedMultipleChoiceShufflesAsEveryAnswerDid() {
        let choices = ["a", "b", "c", "d", "e"]
        let question = AnswerPickerTests.question(choices)
        var planned = SplitMix64(seed: 11)
        var reference = SplitMix64(seed: 11)
        for _ in 0..<1_000 {
            guard case .answer(let given) = AnswerPicker.choices(0...3).pick(for: question, using: &planned) else {
                Issue.record("no answer")
                return
            }
            // The partial shuffle of every answer before plans, by the same draws.
            let count = Int(reference.next() % 4)
            var positions = Array(choices.indices)
            for index in 0..<count {
                positions.swapAt(index, index + Int(reference.next() % UInt64(positions.count - index)))
            }
            let picked = positions.prefix(count).sorted().map { choices[$0] }
            #expect(given.values == picked)
            #expect(given.text == picked.joined(separator: ","))
            #expect(given.label == picked.map { "Label " + $0 }.joined(separator: ","))
            #expect(given.json == Array(("[" + picked.map { "\"\($0)\"" }.joined(separator: ",") + "]").utf8))
        }
    }

    @Test func freeTextIsTheDrawnWordsOneSpaceApart() {
        var planned = SplitMix64(seed: 3)
        var reference = SplitMix64(seed: 3)
        let words = AnswerPicker.vocabulary
        for _ in 0..<500 {
            guard case .answer(let given) = AnswerPicker.words(0...6).pick(for: SurveyQuestion(id: 1, text: ""), using: &planned) else {
                Issue.record("no answer")
                return
            }
            let count = Int(reference.next() % 7)
            let drawn = (0..<count).map { _ in words[Int(reference.next() % UInt64(words.count))] }
            #expect(given.text == drawn.joined(separator: " "))
            #expect(given.json == nil && given.label == given.text)
        }
    }
}
