import Foundation
import SurveyJourney

/// Where in a request a value is sent: a path segment, a query parameter, a header, a form
/// field, a string member of a JSON body, or a text body.
enum SentPlace: Hashable, Sendable {
    case segment(Int)
    case query(Int)
    case header(Int)
    case field(Int)
    case member([JSONLocator.Step])
    case text
}

/// A value a request sends, where it sends it and under what name.
struct SentValue: Sendable {
    var place: SentPlace
    /// How the summary names the place, and how two recordings of one walk are matched:
    /// `path segment 2`, `query lang`, `header X-Token`, `form field csrf`, `JSON $.a.b`.
    var label: String
    /// A name for a variable taken from here: the field's, header's or member's.
    var key: String
    var value: String
}

/// What replaces a value the recording sent: a capture of the session, a secret from the
/// environment, or the respondent's own number.
enum Replacement: Hashable, Sendable {
    case session(String)
    case environment(String)
    case respondentID
    /// A page loop's answers to the page.
    case answers

    /// `${session.token}`, `${SURVEY_PASSWORD}`, `${respondent.id}`, `${answers}`.
    var template: String {
        switch self {
        case .session(let name): "${session.\(name)}"
        case .environment(let name): "${\(name)}"
        case .respondentID: "${respondent.id}"
        case .answers: "${answers}"
        }
    }
}

/// A piece of a value as the plan writes it: recorded text, or a variable.
enum ValuePiece: Hashable, Sendable {
    case literal(String)
    case variable(Replacement)
}

/// A kept request cut into the places a value can be sent in, with the recorded values that
/// are to be replaced by variables (captures, secrets, generated values).
struct RecordedRequest: Sendable {
    /// A request's body as the plan's kinds: JSON, an HTML form's fields, or text.
    enum Body: Sendable {
        case none
        case json(JSONValue)
        case form([HARField])
        case text(String, contentType: String)
    }

    var entry: HAREntry
    var method: String
    /// The path's segments as sent (percent-encoded), split at `/`: `/a/b` is `["", "a", "b"]`.
    var segments: [String]
    /// The query's parameters as sent (percent-encoded); nil without a query.
    var query: [HARField]?
    /// The headers worth sending again (`HeaderRules`).
    var headers: [HARField]
    var body: Body
    /// The cookies the browser sent (its `Cookie` line): the jar's to send, not the plan's.
    var cookies: [HARField]
    /// The response's body and header values as bytes, searched for every value sent later.
    let responseBytes: [UInt8]
    /// For each place, the recorded values replaced and what replaces them, longest first
    /// when spliced.
    var replacements: [SentPlace: [(value: String, by: Replacement)]] = [:]

    init(_ entry: HAREntry) {
        self.entry = entry
        let request = entry.request
        method = request.method
        segments = request.url.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        query = request.url.query.map { query in
            query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return HARField(name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
            }
        }
        let body = Self.body(of: request)
        self.body = body
        headers = HeaderRules.kept(request.headers, body: body)
        var bytes = Array((entry.response.content.body.text ?? "").utf8)
        for header in entry.response.headers {
            bytes.append(0x0A)
            bytes += header.value.utf8
        }
        responseBytes = bytes
        cookies = request.cookies.isEmpty ? HeaderRules.cookies(inHeader: request.header("cookie") ?? "") : request.cookies
    }

    /// The body as the plan's kind: JSON when it says so (or reads as a JSON object or list),
    /// form fields when url-encoded with no name twice, else text of its type.
    static func body(of request: HARRequest) -> Body {
        guard let post = request.postData else { return .none }
        let text =
            post.text
            ?? (post.params.isEmpty ? nil : post.params.map { "\(formEncoded($0.name))=\(formEncoded($0.value))" }.joined(separator: "&"))
        guard let text, !text.isEmpty else { return .none }
        let mime = post.mimeType.isEmpty ? (request.header("content-type") ?? "").lowercased() : post.mimeType
        if mime.contains("json") || mime.isEmpty, case .success(let value) = JSONValue.parse(Array(text.utf8)) {
            switch value {
            case .object, .array: return .json(value)
            default: break
            }
        }
        if mime.contains("x-www-form-urlencoded") {
            let fields = HTMLForm.postedFields(Array(text.utf8)[...]).map { HARField(name: $0.name, value: $0.value) }
            if Set(fields.map(\.name)).count == fields.count { return .form(fields) }
        }
        return .text(text, contentType: mime.isEmpty ? "text/plain; charset=utf-8" : mime)
    }

    /// Every value the request sends that a response may have given or that may be a secret:
    /// its path's segments, query parameters, kept headers (and a header's credentials after
    /// its scheme, `Bearer …`), form fields and the JSON body's strings.
    var sentValues: [SentValue] {
        var values: [SentValue] = []
        for (index, segment) in segments.enumerated() where !segment.isEmpty {
            let key = index > 1 ? Self.percentDecoded(segments[index - 1]) : "path"
            values.append(SentValue(place: .segment(index), label: "path segment \(index)", key: key, value: Self.percentDecoded(segment)))
        }
        for (index, parameter) in (query ?? []).enumerated() {
            let name = Self.formDecoded(parameter.name[...])
            values.append(SentValue(place: .query(index), label: "query \(name)", key: name, value: Self.formDecoded(parameter.value[...])))
        }
        for (index, header) in headers.enumerated() {
            values.append(SentValue(place: .header(index), label: "header \(header.name)", key: header.name, value: header.value))
            let words = header.value.split(separator: " ", maxSplits: 1)
            if words.count == 2, words[0].allSatisfy(\.isLetter) {
                values.append(SentValue(place: .header(index), label: "header \(header.name)", key: header.name, value: String(words[1])))
            }
        }
        switch body {
        case .form(let fields):
            for (index, field) in fields.enumerated() {
                values.append(SentValue(place: .field(index), label: "form field \(field.name)", key: field.name, value: field.value))
            }
        case .json(let value):
            Self.strings(in: value, path: []) { path, key, text in
                values.append(SentValue(place: .member(path), label: "JSON \(JSONPathText.text(path))", key: key, value: text))
            }
        case .text, .none:
            break
        }
        return values
    }

    /// Calls `body` with every string (and number, as written) in `value`, its path and the
    /// name of the member that holds it.
    static func strings(
        in value: JSONValue, path: [JSONLocator.Step], key: String = "value", _ body: ([JSONLocator.Step], String, String) -> Void
    ) {
        switch value {
        case .string(let text): body(path, key, text)
        case .object(let members):
            for (name, member) in members { strings(in: member, path: path + [.name(name)], key: name, body) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { strings(in: element, path: path + [.index(index)], key: key, body) }
        default: break
        }
    }

    /// Replaces `value` wherever `place` sends it.
    mutating func replace(_ value: String, at place: SentPlace, by replacement: Replacement) {
        var list = replacements[place, default: []]
        guard !list.contains(where: { $0.value == value }) else { return }
        list.append((value, replacement))
        list.sort { $0.value.count > $1.value.count }
        replacements[place] = list
    }

    /// `text` cut into recorded text and variables by the replacements made at `place`;
    /// `encoded` also finds each value percent-encoded, as a path or query sends it.
    func pieces(_ text: String, at place: SentPlace, encoded: Bool = false) -> [ValuePiece] {
        var pieces: [ValuePiece] = [.literal(text)]
        for (value, replacement) in replacements[place] ?? [] {
            let spellings = encoded ? Array(Set([value, Self.percentEncoded(value)])) : [value]
            for spelling in spellings where !spelling.isEmpty {
                pieces = pieces.flatMap { piece -> [ValuePiece] in
                    guard case .literal(let literal) = piece, literal.contains(spelling) else { return [piece] }
                    var result: [ValuePiece] = []
                    for (index, part) in literal.split(separator: spelling, omittingEmptySubsequences: false).enumerated() {
                        if index > 0 { result.append(.variable(replacement)) }
                        if !part.isEmpty { result.append(.literal(String(part))) }
                    }
                    return result
                }
            }
        }
        return pieces
    }

    /// `METHOD /path?query` with its variables.
    var requestLine: [ValuePiece] {
        var pieces: [ValuePiece] = [.literal(method + " ")]
        for (index, segment) in segments.enumerated() {
            if index > 0 { pieces.append(.literal("/")) }
            pieces += self.pieces(segment, at: .segment(index), encoded: true)
        }
        if let query {
            for (index, parameter) in query.enumerated() {
                pieces.append(.literal((index == 0 ? "?" : "&") + parameter.name + "="))
                pieces += self.pieces(parameter.value, at: .query(index), encoded: true)
            }
        }
        return pieces
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == 0x25, utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func formDecoded(_ text: Substring) -> String {
        HTMLForm.formDecoded(Array(text.utf8)[...])
    }

    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return result
    }

    static func formEncoded(_ text: String) -> String { CompiledTemplate.formEncoded(text) }
}

/// A JSON path as a plan writes it: `$.data.token`, `$.items[0]['a b']`.
enum JSONPathText {
    static func text(_ path: [JSONLocator.Step]) -> String {
        "$"
            + path.map { step in
                switch step {
                case .index(let index): return "[\(index)]"
                case .name(let name):
                    let plain =
                        !name.isEmpty && name.first.map { $0.isLetter || $0 == "_" } == true
                        && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
                    return plain ? "." + name : "['" + name.replacingOccurrences(of: "'", with: "\\'") + "']"
                }
            }.joined()
    }
}
