import Foundation
import SurveyJourney

/// What a response looks like, values left aside: two responses of the same step have the same
/// shape when the replay went where the recording went, whatever tokens, ids and times they hold.
///
/// JSON: the set of its member paths, each with its value's kind (`$.items[*].id: number`);
/// an HTML page: its `<title>` and the names of its form fields; anything else: its content
/// type. A body that was not recorded, or that is too long to read whole, has no shape to
/// compare: only the status counts then.
enum ResponseShape: Sendable, Equatable {
    /// A JSON document: each member path and element path (arrays as `[*]`) with its kind.
    case json(Set<String>)
    /// An HTML page: its title (spaces collapsed) and its form fields' names, sorted, once each.
    case html(title: String?, fields: [String])
    /// Another body, by its media type (nil when the response named none).
    case other(mediaType: String?)
    /// No body at all.
    case empty
    /// A body not recorded, or too long to read whole: not compared.
    case unknown

    /// The shape of `response`'s body.
    init(_ response: Exchange.Response) {
        guard let body = response.body, !response.bodyTruncated else {
            self = .unknown
            return
        }
        guard !body.isEmpty else {
            self = .empty
            return
        }
        let type = response.mediaType
        let start = body.first { !(" \t\r\n" as String).utf8.contains($0) }
        let looksJSON = type.map { $0.hasSuffix("json") } ?? (start == UInt8(ascii: "{") || start == UInt8(ascii: "["))
        if looksJSON, case .success(let value) = JSONValue.parse(body) {
            var paths = Set<String>()
            Self.collect(value, at: "$", into: &paths)
            self = .json(paths)
            return
        }
        let text = String(decoding: body, as: UTF8.self)
        if type == "text/html" || type == "application/xhtml+xml" || (type == nil && HTMLForm.find("<html", in: text[...]) != nil) {
            self = .html(title: Self.title(of: text), fields: Self.fieldNames(in: text))
            return
        }
        self = .other(mediaType: type)
    }

    /// What kind of shape it is, as the replay's table says it: `JSON, 4 members`.
    var summary: String {
        switch self {
        case .json(let paths): "JSON, \(paths.count) path\(paths.count == 1 ? "" : "s")"
        case .html(_, let fields): "HTML, \(fields.count) form field\(fields.count == 1 ? "" : "s")"
        case .other(let type): type ?? "no content type"
        case .empty: "no body"
        case .unknown: "body not compared"
        }
    }

    /// How `replayed` differs from `self`, the recorded shape, in short phrases — `$.token
    /// missing`, `title 'Survey' → 'Error'` — or nil when the two are the same, or either is
    /// `unknown`.
    func differences(from replayed: ResponseShape, limit: Int = 4) -> [String]? {
        switch (self, replayed) {
        case (.unknown, _), (_, .unknown): return nil
        case (.json(let recorded), .json(let replayedPaths)):
            guard recorded != replayedPaths else { return nil }
            // A path whose kind changed is one difference, not a missing and an added path.
            func split(_ paths: Set<String>) -> [String: String] {
                Dictionary(paths.map { (Self.path(of: $0), $0) }, uniquingKeysWith: { a, _ in a })
            }
            let before = split(recorded)
            let after = split(replayedPaths)
            var phrases: [String] = []
            for path in before.keys.sorted() {
                guard let was = before[path] else { continue }
                if let now = after[path] {
                    if was != now { phrases.append("\(path): \(Self.kind(of: was)) → \(Self.kind(of: now))") }
                } else {
                    phrases.append("\(path) missing")
                }
            }
            for path in after.keys.sorted() where before[path] == nil { phrases.append("\(path) added") }
            return Self.limited(phrases, limit)
        case (.html(let title, let fields), .html(let newTitle, let newFields)):
            var phrases: [String] = []
            if title != newTitle {
                phrases.append("title \(Self.quoted(title)) → \(Self.quoted(newTitle))")
            }
            let missing = fields.filter { !newFields.contains($0) }
            let added = newFields.filter { !fields.contains($0) }
            if !missing.isEmpty { phrases.append("form field\(missing.count == 1 ? "" : "s") \(Self.names(missing)) missing") }
            if !added.isEmpty { phrases.append("form field\(added.count == 1 ? "" : "s") \(Self.names(added)) added") }
            return phrases.isEmpty ? nil : Self.limited(phrases, limit)
        default:
            return self == replayed ? nil : ["\(summary) → \(replayed.summary)"]
        }
    }

    /// Each path of `value` below `path` with its value's kind, `$.a[*].b: string`, into `paths`.
    private static func collect(_ value: JSONValue, at path: String, into paths: inout Set<String>) {
        paths.insert("\(path): \(kindName(value))")
        switch value {
        case .object(let members):
            for (name, member) in members { collect(member, at: path + memberStep(name), into: &paths) }
        case .array(let elements):
            for element in elements { collect(element, at: path + "[*]", into: &paths) }
        default:
            break
        }
    }

    /// `.name`, or `['name']` for a name that is not letters, digits and `_`.
    static func memberStep(_ name: String) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
        return plain ? "." + name : "['" + name.replacingOccurrences(of: "'", with: "\\'") + "']"
    }

    private static func kindName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The path before `: kind` in an entry of a `.json` set.
    private static func path(of entry: String) -> String {
        entry.range(of: ": ", options: .backwards).map { String(entry[..<$0.lowerBound]) } ?? entry
    }

    /// The kind after `path: ` in an entry of a `.json` set.
    private static func kind(of entry: String) -> String {
        entry.range(of: ": ", options: .backwards).map { String(entry[$0.upperBound...]) } ?? entry
    }

    /// The `<title>`'s text, its spaces collapsed and its references decoded; nil without one.
    static func title(of page: String) -> String? {
        guard let open = HTMLForm.find("<title", in: page[...]) else { return nil }
        let rest = page[open.upperBound...]
        let start = HTMLForm.tagEnd(rest)
        guard start < rest.endIndex else { return nil }
        let text = rest[rest.index(after: start)...]
        let end = HTMLForm.find("</title", in: text)?.lowerBound ?? text.endIndex
        let words = HTMLForm.decoded(text[..<end]).split(whereSeparator: \.isWhitespace)
        return words.joined(separator: " ")
    }

    /// The names of the page's `<input>`, `<select>` and `<textarea>` fields, sorted, once each.
    static func fieldNames(in page: String) -> [String] {
        var names = Set<String>()
        for tag in ["<input", "<select", "<textarea"] {
            var rest = page[...]
            while let open = HTMLForm.find(tag, in: rest) {
                rest = rest[open.upperBound...]
                guard let next = rest.first, next.isWhitespace || next == "/" else { continue }
                let end = HTMLForm.tagEnd(rest)
                if let name = HTMLForm.attributes(rest[..<end]).first(where: { $0.name == "name" })?.value, !name.isEmpty {
                    names.insert(name)
                }
                rest = rest[end...]
            }
        }
        return names.sorted()
    }

    private static func quoted(_ title: String?) -> String {
        title.map { "'\(TerminalText.escaped($0, limit: 60))'" } ?? "none"
    }

    private static func names(_ names: [String]) -> String {
        let shown = names.prefix(3).map { TerminalText.escaped($0, limit: 40) }.joined(separator: ", ")
        return shown + (names.count > 3 ? " and \(names.count - 3) more" : "")
    }

    private static func limited(_ phrases: [String], _ limit: Int) -> [String] {
        phrases.count <= limit ? phrases : Array(phrases.prefix(limit)) + ["\(phrases.count - limit) more"]
    }
}
