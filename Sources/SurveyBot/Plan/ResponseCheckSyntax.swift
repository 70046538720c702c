import SurveyEngine
import SurveyJourney
import SurveyWire

/// A step's `expect` lines, as Hurl's asserts read: `SUBJECT TEST [VALUE]`.
///
///     status == 200              status in [200, 204, 3xx]
///     $.error not exists         $.result.status == "OK"       $.id matches ^q[0-9]+$
///     body contains saved        body not matches (?i)invalid
///     header Content-Type contains json
///
/// A value after `==` or `!=` is JSON for a JSON path (`null`, `3`, `"OK"`), and bare text is
/// a string; the text after `contains` and `matches` is taken as written, or as a JSON string
/// when it is one (`"a \"b\""`).
enum ResponseCheckSyntax {
    /// One line, read into a check or the statuses it accepts.
    enum Line: Equatable {
        case statuses(StatusSet)
        case check(ResponseCheck)
    }

    /// Why a line is not a check.
    struct Invalid: Error, Equatable {
        var reason: String
    }

    static func parse(_ line: String) throws(Invalid) -> Line {
        let text = line.trimmingCharacters(in: " ")
        let (subjectWord, rest) = splitSubject(text)
        switch subjectWord.lowercased() {
        case "status":
            return .statuses(try statuses(rest, line: text))
        case "body":
            return .check(ResponseCheck(.body, try test(rest, subject: "body", json: false), text: text))
        case "header":
            let (name, afterName) = splitSubject(rest)
            guard !name.isEmpty, HTTPSyntax.isToken(name) else {
                throw Invalid(reason: "expected a header name after 'header' in '\(text)'")
            }
            return .check(ResponseCheck(.header(name), try test(afterName, subject: "header \(name)", json: false), text: text))
        case _ where subjectWord.hasPrefix("$"):
            let path: JSONPath
            do throws(JSONPath.ParseError) {
                path = try JSONPath(parsing: subjectWord)
            } catch {
                throw Invalid(reason: "'\(subjectWord)' is not a JSON path: \(error.reason)")
            }
            return .check(ResponseCheck(.json(path), try test(rest, subject: subjectWord, json: true), text: text))
        default:
            throw Invalid(
                reason: "a check starts with 'status', 'body', 'header NAME' or a JSON path such as $.error, found '\(subjectWord)'")
        }
    }

    /// `== 200`, `== 2xx`, `in [200, 204]`.
    private static func statuses(_ rest: String, line: String) throws(Invalid) -> StatusSet {
        let (word, value) = splitWord(rest)
        var names: [String]
        switch word {
        case "==": names = [value]
        case "in":
            guard value.hasPrefix("["), value.hasSuffix("]") else {
                throw Invalid(reason: "expected a list like [200, 204] after 'status in', found '\(value)'")
            }
            names = value.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: " ") }
        default:
            throw Invalid(reason: "expected 'status == 200' or 'status in [200, 204]' (codes or classes like 2xx), found '\(line)'")
        }
        names = names.filter { !$0.isEmpty }
        guard !names.isEmpty, let set = StatusSet(names: names) else {
            throw Invalid(reason: "expected status codes (100–599) or classes (1xx–5xx) in '\(line)'")
        }
        return set
    }

    /// The test after the subject.
    private static func test(_ rest: String, subject: String, json: Bool) throws(Invalid) -> ResponseCheck.Test {
        var (word, value) = splitWord(rest)
        var negated = false
        if word == "not" {
            negated = true
            (word, value) = splitWord(value)
        }
        func needsValue() throws(Invalid) -> String {
            guard !value.isEmpty else { throw Invalid(reason: "'\(subject) \(negated ? "not " : "")\(word)' needs a value after it") }
            return unquoted(value)
        }
        switch (word, negated) {
        case ("exists", false): return .exists
        case ("exists", true): return .absent
        case ("==", false), ("!=", false):
            let expected: JSONValue
            if json, !value.isEmpty, case .success(let parsed) = JSONValue.parse(Array(value.utf8)) {
                expected = parsed
            } else {
                expected = .string(try needsValue())
            }
            return word == "==" ? .equals(expected) : .notEquals(expected)
        case ("contains", _):
            let part = try needsValue()
            return negated ? .notContains(part) : .contains(part)
        case ("matches", _):
            let source = try needsValue()
            let pattern: TextPattern
            do throws(TextPattern.Invalid) {
                pattern = try TextPattern(source)
            } catch {
                throw Invalid(reason: error.reason)
            }
            return negated ? .notMatches(pattern) : .matches(pattern)
        default:
            throw Invalid(
                reason: "expected 'exists', 'not exists', '==', '!=', 'contains', 'not contains', 'matches' or 'not matches' after "
                    + "'\(subject)', found '\(rest)'")
        }
    }

    /// The text of a JSON string (`"a \"b\""`), or `text` as written.
    private static func unquoted(_ text: String) -> String {
        if text.hasPrefix("\""), case .success(.string(let string)) = JSONValue.parse(Array(text.utf8)) { return string }
        return text
    }

    /// The first word and the rest, trimmed.
    private static func splitWord(_ text: String) -> (String, String) {
        let trimmed = text.trimmingCharacters(in: " ")
        guard let space = trimmed.firstIndex(of: " ") else { return (trimmed, "") }
        return (String(trimmed[..<space]), trimmed[space...].trimmingCharacters(in: " "))
    }

    /// The subject and the rest: a JSON path ends at the first space outside its brackets and
    /// quotes (`$['a b'].c`).
    private static func splitSubject(_ text: String) -> (String, String) {
        let trimmed = text.trimmingCharacters(in: " ")
        var depth = 0
        var quote: Character?
        for index in trimmed.indices {
            let character = trimmed[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "[" {
                depth += 1
            } else if character == "]" {
                depth -= 1
            } else if character == " ", depth <= 0 {
                return (String(trimmed[..<index]), trimmed[index...].trimmingCharacters(in: " "))
            }
        }
        return (trimmed, "")
    }
}
