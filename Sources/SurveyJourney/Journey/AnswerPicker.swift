import SurveyWire

/// How a respondent answers a question: a value the plan gives (one, or one of a list), or one
/// read from the survey itself — one of the choices it lists (uniformly, weighted, or the one
/// with a label), several of them, a number within bounds, words of free text — or not at all.
/// Written in a plan as `choice()`, `choice(A1 40%, @2 10%, "Blue" 20%)`, `choice("Blue")`,
/// `choices(1..3)`, `number()`, `number(0..10)`, `words(2..8)`, `skip()`; picked with the
/// respondent's own seeded stream, so that a run is reproducible.
public enum AnswerPicker: Sendable, Hashable {
    /// One of these values, each as likely (today's `answers:`): a value as it is.
    case fixed([String])
    /// One of the choices the question lists: uniformly without weights; by the weights given
    /// (the choices not named share what is left); or, when the items carry no weight, one of
    /// the choices they name.
    case choice([ChoiceWeight])
    /// Between `lowerBound` and `upperBound` of the choices the question lists, each set as
    /// likely, in the survey's order: a multiple choice.
    case choices(ClosedRange<Int>)
    /// A whole number within the range, or within the question's own bounds when nil.
    case number(ClosedRange<Int>?)
    /// Free text of between so many words, drawn from a fixed list.
    case words(ClosedRange<Int>)
    /// No answer: the question is left out, as a person skips it.
    case skip

    /// One item of `choice(…)`: which choice, and how likely (a percentage), if said.
    public struct ChoiceWeight: Sendable, Hashable {
        /// A choice by its id (`A1`), its label (`"Very satisfied"`, any case) or its position
        /// from 1 (`@1`).
        public enum Selector: Sendable, Hashable {
            case id(String)
            case label(String)
            case position(Int)
        }

        /// Which choice.
        public var selector: Selector
        /// The percentage, 0–100; nil when the item names a candidate without a weight.
        public var percent: Double?

        /// An item.
        public init(_ selector: Selector, percent: Double? = nil) {
            self.selector = selector
            self.percent = percent
        }
    }

    /// Whether it answers from what the question lists (its choices or bounds).
    public var readsTheSurvey: Bool {
        switch self {
        case .choice, .choices: true
        case .number(let range): range == nil
        case .fixed, .words, .skip: false
        }
    }

    /// Whether it needs the question's choices.
    public var needsChoices: Bool {
        switch self {
        case .choice, .choices: true
        default: false
        }
    }
}

/// What a respondent answers one question: the text `${answer}` is in a path, a header, a form
/// or text; the JSON it is in a JSON body (a string, a number, or a list of several choices);
/// its label (`${answer.label}`); and each value of a multiple choice, which a form sends as a
/// field each.
package struct GivenAnswer: Sendable, Hashable {
    /// The answer as text: a multiple choice's ids joined by commas.
    package var text: String
    /// The answer as a JSON value when it is not a string: a number, a choice whose id is an
    /// integer, a list of choices; nil for a string.
    package var json: [UInt8]?
    /// The choice's label (labels joined by commas); the text for an answer that is no choice.
    package var label: String
    /// Each id of a multiple choice; empty otherwise.
    package var values: [String] = []

    /// An answer of text: a fixed value, words.
    package init(text: String) {
        self.text = text
        label = text
        json = nil
    }

    init(text: String, json: [UInt8]?, label: String, values: [String] = []) {
        self.text = text
        self.json = json
        self.label = label
        self.values = values
    }
}

extension AnswerPicker {
    /// What came of picking: an answer, the plan's choice to leave the question out, or no
    /// answer for want of what the picker needs (the question lists no choices, or no bounds).
    package enum Picked: Sendable, Hashable {
        case answer(GivenAnswer)
        case skip
        case unanswerable(String)
    }

    /// The answer to `question`, drawn from `random`. A fixed value's draw is today's: one draw
    /// among several values, none for one.
    package func pick(for question: SurveyQuestion, using random: inout SplitMix64) -> Picked {
        let details = question.details
        switch self {
        case .fixed(let values):
            guard !values.isEmpty else { return .skip }
            let index = values.count == 1 ? 0 : Int(random.next() % UInt64(values.count))
            return .answer(GivenAnswer(text: values[index]))
        case .skip:
            return .skip
        case .choice(let items):
            guard let listed = details?.choices, !listed.isEmpty else { return .unanswerable("lists no choices") }
            switch Self.chosen(items, among: listed, using: &random) {
            case .success(let index): return .answer(Self.answer(listed[index]))
            case .failure(let why): return .unanswerable(why.phrase)
            }
        case .choices(let range):
            guard let listed = details?.choices, !listed.isEmpty else { return .unanswerable("lists no choices") }
            let low = min(range.lowerBound, listed.count)
            let high = min(range.upperBound, listed.count)
            let count = low + Int(random.next() % UInt64(high - low + 1))
            // A partial shuffle picks `count` distinct positions; sent in the survey's order.
            var positions = Array(listed.indices)
            for index in 0..<count {
                let other = index + Int(random.next() % UInt64(positions.count - index))
                positions.swapAt(index, other)
            }
            let picked = positions.prefix(count).sorted().map { listed[$0] }
            var json: [UInt8] = [0x5B]
            for (index, choice) in picked.enumerated() {
                if index > 0 { json.append(0x2C) }
                json += Self.answer(choice).json ?? Self.quoted(choice.id)
            }
            json.append(0x5D)
            let ids = picked.map(\.id)
            return .answer(
                GivenAnswer(
                    text: ids.joined(separator: ","), json: json, label: picked.map(\.label).joined(separator: ","), values: ids))
        case .number(let range):
            let bounds: ClosedRange<Int>
            if let range {
                bounds = range
            } else if let low = details?.minimum, let high = details?.maximum, low <= high {
                bounds = low...high
            } else {
                return .unanswerable("gives no minimum and maximum for number()")
            }
            let span = UInt64(bitPattern: Int64(bounds.upperBound) &- Int64(bounds.lowerBound)) &+ 1
            let value = bounds.lowerBound &+ Int(truncatingIfNeeded: span == 0 ? random.next() : random.next() % span)
            let text = String(value)
            return .answer(GivenAnswer(text: text, json: Array(text.utf8), label: text))
        case .words(let range):
            let count = range.lowerBound + Int(random.next() % UInt64(range.upperBound - range.lowerBound + 1))
            // Written straight into one string: no list of words made per answer.
            var text = ""
            text.reserveCapacity(count * 9)
            for index in 0..<count {
                if index > 0 { text.append(" ") }
                text.append(Self.vocabulary[Int(random.next() % UInt64(Self.vocabulary.count))])
            }
            return .answer(GivenAnswer(text: text))
        }
    }

    /// A choice as an answer: its id, as JSON a number when the survey gave an integer.
    private static func answer(_ choice: QuestionDetails.Choice) -> GivenAnswer {
        GivenAnswer(text: choice.id, json: choice.isInteger ? Array(choice.id.utf8) : nil, label: choice.label)
    }

    private static func quoted(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        CompiledTemplate.appendJSONEscaped(text, to: &bytes)
        bytes.append(0x22)
        return bytes
    }

    /// The position of the choice `items` pick among `listed`.
    private static func chosen(
        _ items: [ChoiceWeight], among listed: [QuestionDetails.Choice], using random: inout SplitMix64
    ) -> Result<Int, QuestionDetails.Why> {
        func matches(_ selector: ChoiceWeight.Selector, _ index: Int) -> Bool {
            switch selector {
            case .id(let id): listed[index].id == id
            case .label(let label): listed[index].label.lowercased() == label.lowercased()
            case .position(let position): index == position - 1
            }
        }
        if items.isEmpty { return .success(Int(random.next() % UInt64(listed.count))) }
        if items.allSatisfy({ $0.percent == nil }) {
            // Candidates without weights: one of those listed, each as likely.
            let candidates = listed.indices.filter { index in items.contains { matches($0.selector, index) } }
            guard !candidates.isEmpty else {
                return .failure(QuestionDetails.Why("lists none of the choices \(items.map(\.selector.shown).joined(separator: ", "))"))
            }
            return .success(candidates[Int(random.next() % UInt64(candidates.count))])
        }
        // Weights: each listed choice its item's percentage (the first item naming it); the
        // choices no item names share what is left, each as much. A named choice not listed
        // gives its share to the others. Two passes over the choices, nothing allocated.
        func weight(_ index: Int) -> Double? {
            items.first { matches($0.selector, index) }.map { $0.percent ?? 0 }
        }
        var given = 0.0
        var unnamed = 0
        for index in listed.indices {
            if let named = weight(index) { given += named } else { unnamed += 1 }
        }
        let share = unnamed > 0 ? max(0, 100 - given) / Double(unnamed) : 0
        let total = given + share * Double(unnamed)
        guard total > 0 else { return .failure(QuestionDetails.Why("has no choice with a weight above 0%")) }
        let draw = Double(random.next() >> 11) * 0x1p-53 * total
        var sum = 0.0
        var last = 0
        for index in listed.indices {
            let weight = weight(index) ?? share
            guard weight > 0 else { continue }
            sum += weight
            last = index
            if draw < sum { return .success(index) }
        }
        return .success(last)
    }

    /// The words free text is made of: common, short, plain ASCII.
    static let vocabulary = [
        "good", "service", "quick", "friendly", "price", "quality", "easy", "slow", "helpful", "clear", "staff", "would",
        "recommend", "again", "better", "more", "options", "app", "order", "delivery", "time", "great", "value", "simple",
    ]
}

extension AnswerPicker.ChoiceWeight.Selector {
    /// As the plan writes it.
    var shown: String {
        switch self {
        case .id(let id): id
        case .label(let label): "\"\(label)\""
        case .position(let position): "@\(position)"
        }
    }
}
