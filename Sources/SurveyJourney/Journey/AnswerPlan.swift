import SurveyWire

/// How the run's answers answer one question of a survey, worked out once when the survey's
/// questions are read rather than on every answer: the picker the answer book gives it (its own
/// values or picker, its type's, `"*"`'s), and what that picker needs of the question made
/// ready — its choices, each choice's id as JSON, the running sums of a weighted choice.
/// Respondents that read the same questions share one plan per question
/// (`SurveyQuestion.answerPlan`), so that an answer costs a draw and a few comparisons, not a
/// lookup by type, a copy of the details and a pass over the weights.
package final class AnswerPlan: Sendable {
    /// How the question is answered; nil when the book has no answer for it.
    package let picker: AnswerPicker?
    /// Whether `picker` is its type's (`types:`): its values are then shown by the type's name.
    package let byType: Bool
    /// The choices the question lists, in the survey's order.
    let choices: [QuestionDetails.Choice]
    /// Each choice's id as JSON: a number when the survey gave an integer, else a string.
    let choiceJSON: [[UInt8]]
    /// How `choice(…)` draws a position among `choices`.
    let draw: ChoiceDraw
    /// The question's own bounds, for `number()`.
    let minimum: Int?
    let maximum: Int?

    /// The plan of `picker` (and `byType`) for a question with `details`.
    package init(picker: AnswerPicker?, byType: Bool, details: QuestionDetails?) {
        self.picker = picker
        self.byType = byType
        choices = details?.choices ?? []
        minimum = details?.minimum
        maximum = details?.maximum
        if case .choices = picker {
            choiceJSON = choices.map { choice in
                if choice.isInteger { return Array(choice.id.utf8) }
                var bytes: [UInt8] = [0x22]
                CompiledTemplate.appendJSONEscaped(choice.id, to: &bytes)
                bytes.append(0x22)
                return bytes
            }
        } else {
            choiceJSON = []
        }
        if case .choice(let items) = picker {
            draw = ChoiceDraw(items, among: choices)
        } else {
            draw = .unanswerable("lists no choices")
        }
    }

    /// How `choice(…)` picks a position among the listed choices, worked out from its items.
    enum ChoiceDraw: Sendable {
        /// Any of `count`, each as likely: one draw modulo the count.
        case uniform(Int)
        /// One of these positions, each as likely.
        case among([Int])
        /// By weight: the first position whose running sum exceeds a draw scaled to `total`; the
        /// positions of weight 0 are left out.
        case weighted(sums: [Double], positions: [Int], total: Double)
        /// No choice can be picked, and why.
        case unanswerable(String)

        /// The draw of `items` among `listed`: the same positions, from the same draws, as
        /// weighing every choice on every answer would give.
        init(_ items: [AnswerPicker.ChoiceWeight], among listed: [QuestionDetails.Choice]) {
            guard !listed.isEmpty else {
                self = .unanswerable("lists no choices")
                return
            }
            func matches(_ selector: AnswerPicker.ChoiceWeight.Selector, _ index: Int) -> Bool {
                switch selector {
                case .id(let id): listed[index].id == id
                case .label(let label): listed[index].label.lowercased() == label.lowercased()
                case .position(let position): index == position - 1
                }
            }
            if items.isEmpty {
                self = .uniform(listed.count)
                return
            }
            if items.allSatisfy({ $0.percent == nil }) {
                // Candidates without weights: one of those listed, each as likely.
                let candidates = listed.indices.filter { index in items.contains { matches($0.selector, index) } }
                self =
                    candidates.isEmpty
                    ? .unanswerable("lists none of the choices \(items.map(\.selector.shown).joined(separator: ", "))")
                    : .among(candidates)
                return
            }
            // Weights: each listed choice its item's percentage (the first item naming it); the
            // choices no item names share what is left, each as much. A named choice not listed
            // gives its share to the others.
            let named = listed.indices.map { index in items.first { matches($0.selector, index) }.map { $0.percent ?? 0 } }
            var given = 0.0
            var unnamed = 0
            for weight in named {
                if let weight { given += weight } else { unnamed += 1 }
            }
            let share = unnamed > 0 ? max(0, 100 - given) / Double(unnamed) : 0
            let total = given + share * Double(unnamed)
            guard total > 0 else {
                self = .unanswerable("has no choice with a weight above 0%")
                return
            }
            // The sums in the order, and by the additions, the draw compares them.
            var sums: [Double] = []
            var positions: [Int] = []
            var sum = 0.0
            for (index, weight) in named.enumerated() {
                let weight = weight ?? share
                guard weight > 0 else { continue }
                sum += weight
                sums.append(sum)
                positions.append(index)
            }
            self = .weighted(sums: sums, positions: positions, total: total)
        }

        /// The position drawn from `random`, or why there is none (nothing drawn then).
        func position(using random: inout SplitMix64) -> Result<Int, QuestionDetails.Why> {
            switch self {
            case .uniform(let count):
                return .success(Int(random.next() % UInt64(count)))
            case .among(let candidates):
                return .success(candidates[Int(random.next() % UInt64(candidates.count))])
            case .weighted(let sums, let positions, let total):
                let draw = Double(random.next() >> 11) * 0x1p-53 * total
                for index in sums.indices where draw < sums[index] { return .success(positions[index]) }
                return .success(positions[positions.count - 1])
            case .unanswerable(let why):
                return .failure(QuestionDetails.Why(why))
            }
        }
    }
}

extension AnswerBook {
    /// How the book answers `question` (`picker(for:)`), with what its picker needs of the
    /// question made ready: worked out once per question of a survey read.
    package func plan(for question: SurveyQuestion) -> AnswerPlan {
        let found = picker(for: question)
        return AnswerPlan(picker: found?.picker, byType: found?.byType ?? false, details: question.details)
    }
}

extension AnswerPlan {
    /// The answer its picker gives, drawn from `random`: for the same draws, what picking from
    /// the question's details on every answer gave, made with one allocation or none per value.
    package func pick(using random: inout SplitMix64) -> AnswerPicker.Picked {
        switch picker {
        case nil, .skip?:
            return .skip
        case .fixed(let values)?:
            guard !values.isEmpty else { return .skip }
            let index = values.count == 1 ? 0 : Int(random.next() % UInt64(values.count))
            return .answer(GivenAnswer(text: values[index]))
        case .choice?:
            switch draw.position(using: &random) {
            case .success(let index):
                let choice = choices[index]
                return .answer(GivenAnswer(text: choice.id, json: choice.isInteger ? Array(choice.id.utf8) : nil, label: choice.label))
            case .failure(let why):
                return .unanswerable(why.phrase)
            }
        case .choices(let range)?:
            guard !choices.isEmpty else { return .unanswerable("lists no choices") }
            let low = min(range.lowerBound, choices.count)
            let high = min(range.upperBound, choices.count)
            let count = low + Int(random.next() % UInt64(high - low + 1))
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: choices.count) { positions in
                // A partial shuffle picks `count` distinct positions, sent in the survey's order.
                for index in positions.indices { positions.initializeElement(at: index, to: index) }
                for index in 0..<count {
                    positions.swapAt(index, index + Int(random.next() % UInt64(choices.count - index)))
                }
                Self.sort(positions, count: count)
                var json: [UInt8] = []
                json.reserveCapacity(2 + (0..<count).reduce(0) { $0 + choiceJSON[positions[$1]].count + 1 })
                json.append(0x5B)
                var values: [String] = []
                values.reserveCapacity(count)
                for index in 0..<count {
                    if index > 0 { json.append(0x2C) }
                    json.append(contentsOf: choiceJSON[positions[index]])
                    values.append(choices[positions[index]].id)
                }
                json.append(0x5D)
                let text = Self.joined(count) { values[$0] }
                let label = Self.joined(count) { choices[positions[$0]].label }
                return .answer(GivenAnswer(text: text, json: json, label: label, values: values))
            }
        case .number(let range)?:
            let bounds: ClosedRange<Int>
            if let range {
                bounds = range
            } else if let low = minimum, let high = maximum, low <= high {
                bounds = low...high
            } else {
                return .unanswerable("gives no minimum and maximum for number()")
            }
            let span = UInt64(bitPattern: Int64(bounds.upperBound) &- Int64(bounds.lowerBound)) &+ 1
            let value = bounds.lowerBound &+ Int(truncatingIfNeeded: span == 0 ? random.next() : random.next() % span)
            let text = String(value)
            return .answer(GivenAnswer(text: text, json: Array(text.utf8), label: text))
        case .words(let range)?:
            let count = range.lowerBound + Int(random.next() % UInt64(range.upperBound - range.lowerBound + 1))
            let words = AnswerPicker.vocabularyBytes
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, count)) { drawn in
                // The words drawn first, then written straight into one string of their length.
                var length = max(0, count - 1)
                for index in 0..<count {
                    let word = Int(random.next() % UInt64(words.count))
                    drawn.initializeElement(at: index, to: word)
                    length += words[word].count
                }
                guard length > 0 else { return .answer(GivenAnswer(text: "")) }
                let text = String(unsafeUninitializedCapacity: length) { buffer in
                    var end = 0
                    for index in 0..<count {
                        if index > 0 {
                            buffer[end] = 0x20
                            end += 1
                        }
                        for byte in words[drawn[index]] {
                            buffer[end] = byte
                            end += 1
                        }
                    }
                    return end
                }
                return .answer(GivenAnswer(text: text))
            }
        }
    }

    /// Sorts the first `count` positions in place: an insertion sort, for the few a multiple
    /// choice picks.
    private static func sort(_ positions: UnsafeMutableBufferPointer<Int>, count: Int) {
        var next = 1
        while next < count {
            let value = positions[next]
            var place = next
            while place > 0, positions[place - 1] > value {
                positions[place] = positions[place - 1]
                place -= 1
            }
            positions[place] = value
            next += 1
        }
    }

    /// `count` parts joined by commas, written at once into a string of their length.
    private static func joined(_ count: Int, _ part: (Int) -> String) -> String {
        var length = max(0, count - 1)
        for index in 0..<count { length += part(index).utf8.count }
        guard length > 0 else { return "" }
        return String(unsafeUninitializedCapacity: length) { buffer in
            var end = 0
            for index in 0..<count {
                if index > 0 {
                    buffer[end] = 0x2C
                    end += 1
                }
                end += UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(from: part(index).utf8).1
            }
            return end
        }
    }
}
