import Foundation
import SurveyWire

/// What a step expects of its response besides a 2xx (Hurl's asserts, Gatling's checks): the
/// statuses that count as success, and checks of its body, headers and JSON that must all hold.
/// A response with another status fails as that status; one that fails a check fails as
/// `rejected`, its detail naming the check and what the server sent — a JSON-RPC server
/// refusing inside a `200` is a failure, not a success.
public struct ResponseExpectation: Sendable, Hashable {
    /// The statuses that count as success; nil for any 2xx.
    public var statuses: StatusSet?
    /// The checks, in the plan's order; the first that fails is the one reported.
    public var checks: [ResponseCheck]

    /// An expectation; by default, a 2xx and nothing more.
    public init(statuses: StatusSet? = nil, checks: [ResponseCheck] = []) {
        self.statuses = statuses
        self.checks = checks
    }

    /// Whether `status` counts as success.
    package func accepts(_ status: Int) -> Bool {
        statuses?.contains(status) ?? (200..<300).contains(status)
    }

    /// Whether a check reads the body, or a header.
    var readsBody: Bool { checks.contains { $0.readsBody } }
    var readsHeaders: Bool { checks.contains { if case .header = $0.subject { true } else { false } } }

    /// Nil when every check holds on `response`; else the first that fails and what was found:
    /// `check '$.result.status not exists' failed: found "Invalid session key"`.
    package func failure(in response: TransportResponse) -> String? {
        guard !checks.isEmpty else { return nil }
        var json: Result<JSONValue, JSONValue.ParseError>?
        for check in checks {
            if case .json = check.subject, json == nil { json = JSONValue.parse(response.body) }
            if let found = check.failure(in: response, json: json) { return "check '\(check)' failed: \(found)" }
        }
        return nil
    }
}

/// Status codes and classes: `200`, `[200, 204]`, `2xx`.
public struct StatusSet: Sendable, Hashable, CustomStringConvertible {
    /// Exact codes.
    public var codes: Set<Int>
    /// Classes by their first digit: 2 for `2xx`.
    public var classes: Set<Int>
    /// As written, in order: `[200, 3xx]`.
    public var description: String

    /// The set of `names`, each a code from 100 to 599 or a class from `1xx` to `5xx`; nil
    /// when one is neither.
    public init?(names: [String]) {
        codes = []
        classes = []
        for name in names {
            let lower = name.lowercased()
            guard lower.count == 3, let digit = lower.first?.wholeNumberValue, lower.first?.isASCII == true else { return nil }
            if lower.hasSuffix("xx"), (1...5).contains(digit) {
                classes.insert(digit)
            } else if let code = Int(lower), (100...599).contains(code) {
                codes.insert(code)
            } else {
                return nil
            }
        }
        description = names.count == 1 ? names[0].lowercased() : "[" + names.map { $0.lowercased() }.joined(separator: ", ") + "]"
    }

    /// Whether `status` is one of the codes or in one of the classes.
    public func contains(_ status: Int) -> Bool {
        codes.contains(status) || classes.contains(status / 100)
    }
}

/// One check of a response: a subject (the body, a header, a JSON path into the body) and a
/// test, as a plan writes it: `$.error not exists`, `body contains "OK"`,
/// `header Content-Type matches json`.
public struct ResponseCheck: Sendable, Hashable, CustomStringConvertible {
    /// What is checked.
    public enum Subject: Sendable, Hashable {
        /// The body, as text (UTF-8, invalid bytes replaced).
        case body
        /// A header field, by name in any case; the first of that name.
        case header(String)
        /// The first value a JSON path selects in the body; a body that is not JSON has none.
        case json(JSONPath)
    }

    /// What must hold of the subject.
    public enum Test: Sendable, Hashable {
        /// There is a value, and not JSON `null` (which counts as none: JSON-RPC writes
        /// `"error": null`).
        case exists
        /// There is none, or `null`.
        case absent
        /// The value equals this one: a JSON value for a JSON path (`null`, `3`, `"OK"`), text
        /// for a header or the body.
        case equals(JSONValue)
        case notEquals(JSONValue)
        /// The value's text holds this text.
        case contains(String)
        case notContains(String)
        /// The value's text matches this regular expression somewhere.
        case matches(TextPattern)
        case notMatches(TextPattern)
    }

    /// What it checks.
    public var subject: Subject
    /// What must hold of it.
    public var test: Test
    /// The check as the plan wrote it, for reports.
    public var description: String

    /// A check; `text` is how reports name it.
    public init(_ subject: Subject, _ test: Test, text: String) {
        self.subject = subject
        self.test = test
        description = text
    }

    var readsBody: Bool {
        if case .header = subject { false } else { true }
    }

    /// Nil when the check holds; else what was found instead (`found "Invalid session key"`).
    func failure(in response: TransportResponse, json: Result<JSONValue, JSONValue.ParseError>?) -> String? {
        // The subject's value: JSON for a path, text (as a JSON string) for the body and headers.
        let value: JSONValue?
        switch subject {
        case .body:
            value = .string(String(decoding: response.body, as: UTF8.self))
        case .header(let name):
            value = response.headers.first { $0.name.lowercased() == name.lowercased() }.map { .string($0.value) }
        case .json(let path):
            switch json {
            case .success(let document)?: value = path.first(in: document)
            case .failure(let error)?: return "the body is not JSON (\(error))"
            case nil: value = nil
            }
        }
        let present = value.map { $0 != .null } ?? false
        let text = value.map(Self.text)
        let holds: Bool
        switch test {
        case .exists: holds = present
        case .absent: holds = !present
        case .equals(let expected): holds = value.map { Self.equal($0, expected) } ?? false
        case .notEquals(let expected): holds = !(value.map { Self.equal($0, expected) } ?? false)
        case .contains(let part): holds = text?.contains(part) ?? false
        case .notContains(let part): holds = !(text?.contains(part) ?? false)
        case .matches(let pattern): holds = text.map(pattern.matches) ?? false
        case .notMatches(let pattern): holds = !(text.map(pattern.matches) ?? false)
        }
        if holds { return nil }
        guard let value else { return subject == .body ? "an empty body" : "none" }
        switch (subject, test) {
        case (.body, .notMatches(let pattern)): return "the body has \(Self.shown(.string(pattern.firstMatch(in: text ?? "") ?? "")))"
        case (.body, _): return "the body is \(Self.shown(value))"
        default: return "found \(Self.shown(value))"
        }
    }

    /// Equal as JSON, where a number compares by value (`1` and `1.0`), and text by its
    /// characters.
    private static func equal(_ value: JSONValue, _ expected: JSONValue) -> Bool {
        switch (value, expected) {
        case (.integer(let a), .number(let b, _)), (.number(let b, _), .integer(let a)): Double(a) == b
        default: value == expected
        }
    }

    /// A value's text: a string as it is, anything else as JSON.
    static func text(_ value: JSONValue) -> String {
        if case .string(let string) = value { return string }
        return value.json
    }

    /// A value as a failure shows it: JSON, cut after 120 characters.
    static func shown(_ value: JSONValue) -> String {
        let json = value.json
        return json.count > 120 ? String(json.prefix(120)) + "…" : json
    }
}

/// A regular expression, compiled once (`NSRegularExpression`, ICU syntax), matched anywhere in
/// a text.
public struct TextPattern: Sendable, Hashable, CustomStringConvertible {
    /// As written.
    public let description: String
    private let compiled: Compiled

    /// The pattern `text`; throws the reason it does not compile.
    public init(_ text: String) throws(Invalid) {
        do {
            compiled = Compiled(try NSRegularExpression(pattern: text))
        } catch {
            throw Invalid(reason: "'\(text)' is not a regular expression")
        }
        description = text
    }

    /// Why a pattern does not compile.
    public struct Invalid: Error, Sendable, Equatable {
        /// The pattern, and that it does not compile.
        public var reason: String
    }

    /// Whether it matches somewhere in `text`.
    public func matches(_ text: String) -> Bool {
        firstMatch(in: text) != nil
    }

    /// What it captures in `text`: the first match's first group, or the whole match when it
    /// has no group (or the group took no part in the match).
    public func capture(in text: String) -> String? {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = compiled.expression.firstMatch(in: text, range: range) else { return nil }
        let wanted = match.numberOfRanges > 1 && match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range
        return Range(wanted, in: text).map { String(text[$0]) }
    }

    /// Every match in `text`, in order: its first group and its second (nil when the pattern
    /// has none or it took no part), or the whole match when it has no group.
    func matches(in text: String) -> [(first: String, second: String?)] {
        let range = NSRange(text.startIndex..., in: text)
        return compiled.expression.matches(in: text, range: range).compactMap { match in
            func group(_ index: Int) -> String? {
                guard match.numberOfRanges > index, match.range(at: index).location != NSNotFound else { return nil }
                return Range(match.range(at: index), in: text).map { String(text[$0]) }
            }
            guard let first = group(1) ?? group(0) else { return nil }
            return (first, group(2))
        }
    }

    /// The first part of `text` it matches.
    func firstMatch(in text: String) -> String? {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = compiled.expression.firstMatch(in: text, range: range), let found = Range(match.range, in: text) else {
            return nil
        }
        return String(text[found])
    }

    /// Equal when written the same.
    public static func == (lhs: TextPattern, rhs: TextPattern) -> Bool { lhs.description == rhs.description }
    /// By the pattern as written.
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// `NSRegularExpression` is immutable, and documented safe to use from any thread.
    private final class Compiled: @unchecked Sendable {
        let expression: NSRegularExpression
        init(_ expression: NSRegularExpression) { self.expression = expression }
    }
}

extension JSONValue {
    /// Compact JSON text: members in their order, strings escaped.
    public var json: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(_, let text): text
        case .string(let value): JSONValue.quoted(value)
        case .array(let values): "[" + values.map(\.json).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONValue.quoted($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
        }
    }
}
