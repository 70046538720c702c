import SurveyJourney

/// The answers a plan reads from the survey, as written in `answers:` and `types:`:
/// `choice()`, `choice(A1 40%, @2 10%, "Blue" 20%)`, `choice("Blue")`, `choices(1..3)`,
/// `number()`, `number(0..10)`, `words(2..8)`, `skip()`. An unquoted value that starts with one
/// of these names and `(` is one; anything else (or anything quoted) is a value as written.
enum AnswerSyntax {
    /// The names of the pickers, for the value that looks like one.
    static let names = ["choice", "choices", "number", "words", "skip"]

    /// Why a picker does not read: what is wrong, and its offset in the text (in characters).
    struct Invalid: Error, Sendable, Equatable {
        var reason: String
        var offset: Int
    }

    /// Whether `text` is written as a picker: a name of one and `(` (a typo of a name too, so
    /// that `choise()` is an error rather than an answer sent as written).
    static func looksLikePicker(_ text: String) -> Bool {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else { return false }
        let name = text[..<open]
        return !name.isEmpty && name.allSatisfy { $0.isLetter || $0 == "_" }
    }

    /// The picker as a plan writes it.
    static func text(of picker: AnswerPicker) -> String {
        func range(_ range: ClosedRange<Int>) -> String {
            range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)..\(range.upperBound)"
        }
        switch picker {
        case .fixed(let values): return "[" + values.joined(separator: ", ") + "]"
        case .choice(let items):
            let shown = items.map { item -> String in
                let selector =
                    switch item.selector {
                    case .id(let id): id
                    case .label(let label): "\"\(label)\""
                    case .position(let position): "@\(position)"
                    }
                return item.percent.map { "\(selector) \(Readable.percent($0 / 100))" } ?? selector
            }
            return "choice(" + shown.joined(separator: ", ") + ")"
        case .choices(let count): return "choices(\(range(count)))"
        case .number(let bounds): return "number(\(bounds.map(range) ?? ""))"
        case .words(let count): return "words(\(range(count)))"
        case .skip: return "skip()"
        }
    }

    /// The picker `text` writes.
    static func parse(_ text: String) throws(Invalid) -> AnswerPicker {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else {
            throw Invalid(reason: "expected NAME(…)", offset: 0)
        }
        let name = String(text[..<open])
        let inside = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        let insideOffset = name.count + 1
        let trimmed = inside.trimmingCharacters(in: " ")
        switch name {
        case "choice":
            return .choice(try choiceItems(inside, offset: insideOffset))
        case "choices":
            let range = try integerRange(trimmed, offset: insideOffset, least: 1, most: 100, what: "how many choices")
            return .choices(range)
        case "number":
            if trimmed.isEmpty { return .number(nil) }
            return .number(try integerRange(trimmed, offset: insideOffset, least: Int.min / 2, most: Int.max / 2, what: "the numbers"))
        case "words":
            return .words(try integerRange(trimmed, offset: insideOffset, least: 1, most: 1000, what: "how many words"))
        case "skip":
            guard trimmed.isEmpty else { throw Invalid(reason: "skip() takes nothing", offset: insideOffset) }
            return .skip
        default:
            let hint = Suggestions.closest(to: name, in: names).map { " (did you mean '\($0)()'?)" } ?? ""
            throw Invalid(
                reason: "unknown answer '\(name)()'\(hint); expected choice(), choices(), number(), words() or skip(), or quote the "
                    + "value to send it as written", offset: 0)
        }
    }

    /// `A1 40%, @2, "Very satisfied" 20%`: each a choice by id, position or label, with an
    /// optional percentage; together at most 100%, and either all with a weight or none.
    private static func choiceItems(_ text: String, offset: Int) throws(Invalid) -> [AnswerPicker.ChoiceWeight] {
        var items: [AnswerPicker.ChoiceWeight] = []
        var at = offset
        for part in splitItems(text) {
            let itemOffset = at + part.prefix { $0 == " " }.count
            at += part.count + 1
            let item = part.trimmingCharacters(in: " ")
            if item.isEmpty {
                if text.trimmingCharacters(in: " ").isEmpty { break }
                throw Invalid(reason: "an empty choice between commas", offset: itemOffset)
            }
            var selectorText = item
            var percent: Double?
            if item.hasSuffix("%") {
                let words = item.split(separator: " ", omittingEmptySubsequences: true)
                let last = String(words.last ?? "")
                guard words.count >= 2, let value = Double(last.dropLast()), value >= 0, value <= 100 else {
                    throw Invalid(reason: "a weight is a percentage from 0% to 100% after the choice: A1 40%", offset: itemOffset)
                }
                percent = value
                selectorText = String(item.dropLast(last.count)).trimmingCharacters(in: " ")
            }
            let selector: AnswerPicker.ChoiceWeight.Selector
            if selectorText.hasPrefix("\"") {
                guard selectorText.count >= 3, selectorText.hasSuffix("\"") else {
                    throw Invalid(reason: "a label is quoted whole: \"Very satisfied\"", offset: itemOffset)
                }
                selector = .label(String(selectorText.dropFirst().dropLast()))
            } else if selectorText.hasPrefix("@") {
                guard let position = Int(selectorText.dropFirst()), position >= 1 else {
                    throw Invalid(reason: "a position is @ and a number from 1: @1 is the first choice", offset: itemOffset)
                }
                selector = .position(position)
            } else {
                guard !selectorText.isEmpty, !selectorText.contains(" ") else {
                    throw Invalid(
                        reason: "expected a choice — an id (A1), a position (@1) or a quoted label (\"Blue\") — then its weight",
                        offset: itemOffset)
                }
                selector = .id(selectorText)
            }
            items.append(AnswerPicker.ChoiceWeight(selector, percent: percent))
        }
        let weighted = items.filter { $0.percent != nil }
        if !weighted.isEmpty, weighted.count != items.count {
            throw Invalid(reason: "give every choice a weight, or none: choice(A1 40%, A2 60%) or choice(A1, A2)", offset: offset)
        }
        let total = weighted.reduce(0) { $0 + ($1.percent ?? 0) }
        if total > 100.000_001 {
            throw Invalid(reason: "the weights add up to \(Readable.percent(total / 100)), over 100%", offset: offset)
        }
        return items
    }

    /// The items between commas, a comma inside a quoted label kept.
    private static func splitItems(_ text: String) -> [String] {
        var items: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        return items
    }

    /// `3` or `1..3`, within `least...most`.
    private static func integerRange(
        _ text: String, offset: Int, least: Int, most: Int, what: String
    ) throws(Invalid) -> ClosedRange<Int> {
        let parts = text.components(separatedBy: "..")
        let bounds = parts.map { Int($0.trimmingCharacters(in: " ")) }
        guard (1...2).contains(parts.count), let low = bounds[0], let high = bounds[bounds.count - 1] else {
            throw Invalid(reason: "expected \(what) as a whole number or a range like 1..3, found '\(text)'", offset: offset)
        }
        guard low <= high else { throw Invalid(reason: "\(low)..\(high) is empty: the lower bound comes first", offset: offset) }
        guard low >= least, high <= most else {
            throw Invalid(reason: "\(what) must be from \(least) to \(most), found \(text)", offset: offset)
        }
        return low...high
    }
}
