import SurveyEngine

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
        case .number(let value): return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
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
