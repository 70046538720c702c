import SurveyEngine
import SurveyWire

/// Text read from a plan, with where each part of it came from: written in the plan, or taken
/// from an environment variable by `${NAME}`.
///
/// `value` is what goes on the wire; `display` is what anything printed or written shows, with
/// `${NAME}` in place of each part that came from the environment — such values are secrets
/// until proven otherwise. A default after `:-` is written in the plan and shown as it is.
struct PlanText: Sendable, Hashable {
    /// A run of text from one source.
    struct Piece: Sendable, Hashable {
        var text: String
        /// The environment variable the text came from; nil for text written in the plan.
        var variable: String?
    }

    private(set) var pieces: [Piece] = []
    /// The text itself, as sent.
    private(set) var value = ""

    init() {}

    /// Text written in the plan, all of it.
    init(_ literal: String) {
        append(literal: literal)
    }

    /// Whether any part of the text came from the environment.
    var isFromEnvironment: Bool { pieces.contains { $0.variable != nil } }

    /// The text as shown: `${NAME}` in place of each part that came from the environment.
    var display: String {
        pieces.map { piece in piece.variable.map { "${\($0)}" } ?? piece.text }.joined()
    }

    /// `message` — a reason that may quote this text — with the text from the environment in it
    /// written as `${NAME}`: the whole value, then each part of it longer than one character,
    /// as it is or with its control characters escaped (`\r`, `\u{D}`).
    func redacting(_ message: String) -> String {
        guard isFromEnvironment else { return message }
        func forms(_ text: String) -> [String] {
            Array(Set([text, HTTPSyntax.escapingControls(text), TerminalText.escaped(text)])).sorted { $0.count > $1.count }
        }
        var message = message
        for form in forms(value) where !form.isEmpty {
            message = message.replacingOccurrences(of: form, with: display)
        }
        let secrets = pieces.filter { $0.variable != nil && $0.text.count > 1 }.sorted { $0.text.count > $1.text.count }
        for piece in secrets {
            for form in forms(piece.text) {
                message = message.replacingOccurrences(of: form, with: "${\(piece.variable ?? "")}")
            }
        }
        return message
    }

    mutating func append(literal text: String) {
        guard !text.isEmpty else { return }
        value += text
        if let last = pieces.indices.last, pieces[last].variable == nil {
            pieces[last].text += text
        } else {
            pieces.append(Piece(text: text, variable: nil))
        }
    }

    mutating func append(_ scalar: Unicode.Scalar) {
        append(literal: String(scalar))
    }

    /// Appends the value of an environment variable: shown as `${variable}`, even when empty.
    mutating func append(variable: String, value text: String) {
        value += text
        pieces.append(Piece(text: text, variable: variable))
    }

    mutating func append(_ other: PlanText) {
        for piece in other.pieces {
            if let variable = piece.variable { append(variable: variable, value: piece.text) } else { append(literal: piece.text) }
        }
    }

    /// The part of the text at `range`, in Unicode scalars of `value`. A piece from the
    /// environment that the range cuts keeps its variable: its part is still shown by name.
    func slice(_ range: Range<Int>) -> PlanText {
        var result = PlanText()
        var start = 0
        for piece in pieces {
            let scalars = Array(piece.text.unicodeScalars)
            let end = start + scalars.count
            let low = max(start, range.lowerBound)
            let high = min(end, range.upperBound)
            // An empty piece from the environment inside the range is still named.
            if low < high || (scalars.isEmpty && range.contains(start)) {
                let text = String(String.UnicodeScalarView(scalars[(low - start)..<(max(low, high) - start)]))
                if let variable = piece.variable { result.append(variable: variable, value: text) } else { result.append(literal: text) }
            }
            start = end
        }
        return result
    }

    /// The pieces between `separator`s, empty ones left out: `GET /q` → `GET`, `/q`.
    func split(separator: Unicode.Scalar) -> [PlanText] {
        let scalars = Array(value.unicodeScalars)
        var parts: [PlanText] = []
        var start = 0
        for index in 0...scalars.count where index == scalars.count || scalars[index] == separator {
            if index > start { parts.append(slice(start..<index)) }
            start = index + 1
        }
        return parts
    }

    /// The text without leading and trailing spaces.
    func trimmingSpaces() -> PlanText {
        let scalars = Array(value.unicodeScalars)
        var low = 0
        var high = scalars.count
        while low < high, scalars[low] == " " { low += 1 }
        while high > low, scalars[high - 1] == " " { high -= 1 }
        return low == 0 && high == scalars.count ? self : slice(low..<high)
    }

    /// The text without its first `count` Unicode scalars.
    func dropFirst(_ count: Int) -> PlanText {
        slice(count..<value.unicodeScalars.count)
    }
}
