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
    /// among several values, none for one. What it needs of the question is worked out here; a
    /// respondent uses the question's plan, worked out once (`AnswerPlan.pick(using:)`).
    package func pick(for question: SurveyQuestion, using random: inout SplitMix64) -> Picked {
        AnswerPlan(picker: self, byType: false, details: question.details).pick(using: &random)
    }

    /// The words free text is made of: common, short, plain ASCII.
    static let vocabulary = [
        "good", "service", "quick", "friendly", "price", "quality", "easy", "slow", "helpful", "clear", "staff", "would",
        "recommend", "again", "better", "more", "options", "app", "order", "delivery", "time", "great", "value", "simple",
    ]

    /// The vocabulary's words as bytes, for writing free text without a string per word.
    static let vocabularyBytes = vocabulary.map { Array($0.utf8) }
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
