import Foundation
import SurveyEngine
import SurveyJourney

extension JSONValue {
    /// The value as readable JSON: two spaces of indentation, one member or item a line, except
    /// that an array of numbers (histogram buckets, timelines) stays on one line, where one
    /// number a line would make a report thousands of lines long. Members keep their order.
    func prettyText(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .number(let value, _): return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
        case .string(let text): return JSONValue.quoted(text)
        case .array(let items):
            if items.isEmpty { return "[]" }
            if items.allSatisfy(\.isNumber) {
                return "[" + items.map { $0.prettyText() }.joined(separator: ", ") + "]"
            }
            return "[\n" + items.map { inner + $0.prettyText(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let lines = members.map { name, value in inner + JSONValue.quoted(name) + " : " + value.prettyText(indent: inner) }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
        }
    }

    private var isNumber: Bool {
        switch self {
        case .integer, .number: true
        default: false
        }
    }
}

/// Why a document could not be written as JSON: a number that is not finite, named by its
/// field. Reports and diffs compute every figure so that this does not happen; this is the
/// last line of defence, so that no file and no output is ever written empty.
struct JSONEncodingError: Error, Sendable, CustomStringConvertible {
    var description: String
}

/// An optional field written as `null` when it has no value, rather than left out: a figure
/// with no samples is `null` (docs/report-format.md). Read back, `null` is nil again.
@propertyWrapper
struct NullWhenAbsent<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension JSONValue {
    /// `value` as JSON text in the report's style (`prettyText`), keys sorted — except the
    /// top-level members named in `first`, which lead in that order — with a final newline;
    /// throws, naming the field, when a number in it is not finite.
    static func text(of value: some Encodable, first: [String] = []) throws(JSONEncodingError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch EncodingError.invalidValue(let number, let context) {
            let field = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            throw JSONEncodingError(description: "'\(field)' is not a finite number (\(number))")
        } catch {
            throw JSONEncodingError(description: "cannot encode as JSON: \(error)")
        }
        guard case .success(var parsed) = JSONValue.parse(data) else {
            throw JSONEncodingError(description: "the JSON encoder wrote text that is not JSON")
        }
        if !first.isEmpty, case .object(let members) = parsed {
            parsed = .object(first.compactMap { name in members.first { $0.0 == name } } + members.filter { !first.contains($0.0) })
        }
        return parsed.prettyText() + "\n"
    }
}
