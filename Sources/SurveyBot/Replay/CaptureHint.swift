import Foundation
import SurveyJourney
import SurveyWire

/// The value that probably needed a capture: a literal the plan sends in the diverging request
/// (or the one before it) that, in the recording, first came in an earlier response — a token,
/// a session key — so that hard-coding it sends the recording's own, stale value.
///
/// Each literal of the step's path, query, headers and body (the text outside its `${…}`) is
/// sought in the recording in order: a value first sent by the browser is its own (a
/// timestamp, an answer) and is passed over; a value first received is found where it came —
/// a JSON member, a form field, a cookie, a header, or the body — and checked against the
/// replay: when the replay's same step received the same value there, it was not dynamic
/// after all. The value is shown shortened, never whole; credentials (`Authorization`,
/// cookies) and every value of the plan from the environment are never sought.
struct CaptureHint: Sendable, Equatable {
    /// Where a value came in a response, as a capture would take it.
    enum Source: Sendable, Equatable {
        case json(path: String, name: String?)
        case formField(String)
        /// A form field whose value holds it, and more: the plan sends a part of what the
        /// browser sent whole.
        case partOfFormField(String)
        case cookie(String)
        case header(String)
        case body

        /// Where it came, in words: `its JSON $.token`.
        var phrase: String {
            switch self {
            case .json(let path, _): "its JSON \(TerminalText.escaped(path, limit: 80))"
            case .formField(let name): "its form field \(TerminalText.escaped(name, limit: 60))"
            case .partOfFormField(let name): "part of its form field \(TerminalText.escaped(name, limit: 60))'s value"
            case .cookie(let name): "its cookie \(TerminalText.escaped(name, limit: 60))"
            case .header(let name): "its header \(TerminalText.escaped(name, limit: 60))"
            case .body: "its body"
            }
        }

        /// The capture that takes it, as a plan writes it: `$.token`, `form csrf`.
        var capture: String {
            switch self {
            case .json(let path, _): path
            case .formField(let name), .partOfFormField(let name): "form \(name)"
            case .cookie(let name): "cookie \(name)"
            case .header(let name): "header \(name)"
            case .body: "regex PATTERN"
            }
        }

        /// A name for the capture, from where the value came.
        var captureName: String {
            let raw: String
            switch self {
            case .json(_, let name): raw = name ?? "value"
            case .formField(let name), .partOfFormField(let name), .cookie(let name), .header(let name): raw = name
            case .body: raw = "value"
            }
            var name = String(raw.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
            if name.first?.isLetter != true { name = "v" + name }
            return name
        }
    }

    /// Who received a value first: a step of the replay, or a recorded request none stands for.
    enum Receiver: Sendable, Equatable {
        /// The step, by its label in the table (`open`, `page #2`) and its name.
        case step(label: String, name: String)
        /// A recorded request, described: `request #3 (GET /token)`.
        case request(String)
    }

    /// The step that sends the value, as the replay's table labels it (`page #2`), and its name.
    var sender: (label: String, name: String)
    /// Where the step sends it: `in its body`.
    var place: String
    /// The value, whole: never shown (`shownValue`).
    var value: String
    /// Who received it first.
    var receiver: Receiver
    /// Where it came.
    var source: Source
    /// Whether the replay's same step received another value there (true), or the replay has
    /// no such step to ask (false).
    var confirmed: Bool

    static func == (a: CaptureHint, b: CaptureHint) -> Bool {
        a.sender == b.sender && a.place == b.place && a.value == b.value && a.receiver == b.receiver && a.source == b.source
            && a.confirmed == b.confirmed
    }

    /// The value shortened: its first few characters and its length, never the whole value.
    var shownValue: String {
        let shown = min(6, max(1, value.count / 3))
        return "'\(TerminalText.escaped(String(value.prefix(shown))))…' (\(value.count) characters)"
    }

    /// The sentence the replay prints.
    var sentence: String {
        let capture = "'\(source.captureName): \(source.capture)'"
        let (who, whose): (String, String)
        switch receiver {
        case .step(let label, let name): (who, whose) = ("step \(label)", "in \(name)'s capture")
        case .request(let description): (who, whose) = (description, "in the step that sends that request")
        }
        let checked = confirmed ? " (the replay's \(who) received another value there)" : ""
        return "step \(sender.label) sends \(shownValue) \(place), which the recording's \(who) received in \(source.phrase)\(checked) — "
            + "it probably needs a capture: \(capture) \(whose), and ${session.\(source.captureName)} where \(sender.name) sends it"
    }

    /// The hint for `comparison`'s first divergence: a literal of the diverging row's step, or
    /// of the row before it, that came in an earlier recorded response. `literals` gives each
    /// step's literal texts by name (`CaptureHint.literals(of:apiHeaders:)`); a literal that
    /// holds one of `secrets` is never sought.
    static func find(in comparison: ReplayComparison, literals: [String: [Literal]], secrets: [String]) -> CaptureHint? {
        guard let divergence = comparison.firstDivergence ?? (comparison.unreplayed.isEmpty ? nil : comparison.rows.count) else {
            return nil
        }
        var unconfirmed: CaptureHint?
        for position in [divergence, divergence - 1] where comparison.rows.indices.contains(position) {
            let row = comparison.rows[position]
            // Sought in the recorded requests before this one's; all of them when none is paired with it.
            let limit = row.recorded ?? comparison.recorded.count
            for literal in literals[row.attempt.step] ?? [] {
                guard !secrets.contains(where: { !$0.isEmpty && literal.value.contains($0) }) else { continue }
                guard let received = firstReceived(literal.value, in: comparison.recorded[..<limit]) else { continue }
                let (index, source) = received
                let receiving = comparison.rows.first { $0.recorded == index }
                let request = comparison.recorded[index]
                let shownPath = URLDisplay.redacting(TerminalText.escaped(String(request.path), limit: 80))
                let receiver =
                    receiving.map { Receiver.step(label: $0.label, name: $0.attempt.step) }
                    ?? .request("request #\(index + 1) (\(request.method) \(shownPath))")
                var hint = CaptureHint(
                    sender: (row.label, row.attempt.step), place: literal.place, value: literal.value, receiver: receiver, source: source,
                    confirmed: false)
                if let receiving {
                    // The replay received the same value there: the plan may send it as it is.
                    guard let response = receiving.attempt.exchange.response, !holds(response, literal.value, at: source) else { continue }
                    hint.confirmed = true
                    return hint
                }
                if unconfirmed == nil { unconfirmed = hint }
            }
        }
        return unconfirmed
    }

    /// A literal text a step sends, and where.
    struct Literal: Sendable, Equatable {
        var value: String
        /// `in its path`, `in its query`, `in its header X-Token`, `in its body`.
        var place: String
    }

    /// The literals of `step` (and of the API's headers, sent with it) worth seeking: the words
    /// of its path, query, headers and body outside their `${…}`, decoded, of six characters or
    /// more — shorter ones are names and flags more often than tokens. Credential headers are
    /// left out.
    static func literals(of step: JourneyStep, apiHeaders: [HTTPHeader]) -> [Literal] {
        var found: [Literal] = []
        func add(_ text: String, place: String) {
            for word in words(of: text) where word.count >= 6 && !found.contains(where: { $0.value == word }) {
                found.append(Literal(value: word, place: place))
            }
        }
        let path = step.call.path
        if let question = path.firstIndex(of: "?") {
            add(String(path[..<question]), place: "in its path")
            add(String(path[path.index(after: question)...]), place: "in its query")
        } else {
            add(path, place: "in its path")
        }
        for header in apiHeaders + step.headers where !credentialHeader(header.name) {
            add(header.value, place: "in its header \(TerminalText.escaped(header.name, limit: 60))")
        }
        if let body = step.body { add(body, place: "in its body") }
        return found
    }

    /// The words of a template's literal text: its text outside `${…}`, split at what separates
    /// values in paths, queries, forms and JSON, each percent-decoded (`+` a space).
    static func words(of template: String) -> [String] {
        var literal = ""
        var rest = template[...]
        while let open = rest.range(of: "${") {
            literal += rest[..<open.lowerBound] + " "
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                rest = ""
                break
            }
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        let separators: Set<Character> = [
            "/", "?", "&", "=", "\"", "'", ":", ",", ";", "{", "}", "[", "]", " ", "\t", "\n", "\r", "<", ">",
        ]
        return literal.split { separators.contains($0) }.map { word in
            let spaced = word.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? String(spaced)
        }
    }

    /// The first recorded request, among `recorded`, whose response holds `value` — unless a
    /// request sent it first — and where in that response it came.
    static func firstReceived(_ value: String, in recorded: ArraySlice<Exchange>) -> (index: Int, source: Source)? {
        for index in recorded.indices {
            let exchange = recorded[index]
            if sends(exchange, value) { return nil }
            if let response = exchange.response, let source = source(of: value, in: response) { return (index, source) }
        }
        return nil
    }

    /// Whether a request carries `value` in its target, body or a header but its credentials.
    private static func sends(_ exchange: Exchange, _ value: String) -> Bool {
        if exchange.target.contains(value) || (exchange.target.removingPercentEncoding ?? "").contains(value) { return true }
        let body = String(decoding: exchange.requestBody, as: UTF8.self)
        if body.contains(value) || (body.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "").contains(value) {
            return true
        }
        return exchange.requestHeaders.contains { !credentialHeader($0.name) && $0.value.contains(value) }
    }

    private static func credentialHeader(_ name: String) -> Bool {
        Exchange.credentialHeaders.contains(name.lowercased())
    }

    /// Where `value` came in `response`, most specific first: a JSON member, a form field, a
    /// cookie, a header, the body.
    static func source(of value: String, in response: Exchange.Response) -> Source? {
        let text = response.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
        if let body = response.body, case .success(let json) = JSONValue.parse(body),
            let found = jsonPath(of: value, in: json, at: "$", name: nil)
        {
            return found
        }
        if let field = fieldName(holding: value, in: text, whole: true) { return .formField(field) }
        if let field = fieldName(holding: value, in: text, whole: false) { return .partOfFormField(field) }
        for header in response.headers where header.name.lowercased() == "set-cookie" {
            if let cookie = SetCookiePair(header.value), cookie.value == value { return .cookie(cookie.name) }
        }
        if let header = response.headers.first(where: { $0.name.lowercased() != "set-cookie" && $0.value == value }) {
            return .header(header.name)
        }
        return text.contains(value) ? .body : nil
    }

    /// Whether `response` holds `value` at `source`: the replay received what the recording did.
    static func holds(_ response: Exchange.Response, _ value: String, at source: Source) -> Bool {
        let text = response.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
        switch source {
        case .json(let path, _):
            guard let body = response.body, case .success(let json) = JSONValue.parse(body), let parsed = try? JSONPath(parsing: path),
                let found = parsed.first(in: json)
            else { return false }
            return scalarText(found) == value
        case .formField(let name): return HTMLForm.value(of: name, in: text) == value
        case .partOfFormField(let name): return HTMLForm.value(of: name, in: text)?.contains(value) == true
        case .cookie(let name):
            return response.headers.contains { header in
                guard header.name.lowercased() == "set-cookie", let cookie = SetCookiePair(header.value) else { return false }
                return cookie.name == name && cookie.value == value
            }
        case .header(let name): return response.headers.contains { $0.name.lowercased() == name.lowercased() && $0.value == value }
        case .body: return text.contains(value)
        }
    }

    /// The path of the first scalar of `json` whose text is `value`.
    private static func jsonPath(of value: String, in json: JSONValue, at path: String, name: String?) -> Source? {
        switch json {
        case .object(let members):
            for (member, child) in members {
                if let found = jsonPath(of: value, in: child, at: path + ResponseShape.memberStep(member), name: member) { return found }
            }
            return nil
        case .array(let elements):
            for (index, child) in elements.enumerated() {
                if let found = jsonPath(of: value, in: child, at: path + "[\(index)]", name: name) { return found }
            }
            return nil
        default:
            return scalarText(json) == value ? .json(path: path, name: name) : nil
        }
    }

    /// The name of the page's first `<input>` whose value is `value` (`whole`), or holds it.
    private static func fieldName(holding value: String, in page: String, whole: Bool) -> String? {
        var rest = page[...]
        while let open = HTMLForm.find("<input", in: rest) {
            rest = rest[open.upperBound...]
            guard let next = rest.first, next.isWhitespace || next == "/" else { continue }
            let end = HTMLForm.tagEnd(rest)
            let attributes = HTMLForm.attributes(rest[..<end])
            rest = rest[end...]
            guard let held = attributes.first(where: { $0.name == "value" })?.value, whole ? held == value : held.contains(value) else {
                continue
            }
            if let name = attributes.first(where: { $0.name == "name" })?.value { return name }
        }
        return nil
    }

    /// A scalar's text as a request would carry it: a string's value, a number as written.
    private static func scalarText(_ json: JSONValue) -> String? {
        switch json {
        case .string(let text): text
        case .number(_, let text): text
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }
}

/// A `Set-Cookie` field's name and value (what comes before its first `;`).
private struct SetCookiePair {
    var name: String
    var value: String

    init?(_ field: String) {
        let pair = field.prefix { $0 != ";" }
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
    }
}
