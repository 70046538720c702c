/// A path into a JSON value, in the JSONPath notation users know from Gatling, k6 and Hurl:
/// `$.data.token`, `$.items[0].id`, `$.groups[*].questions[*]`, `$` for the value itself. The `$`
/// may be left out (`data.items`, `title.en`): a path always starts at the value it is given.
///
/// - `.name` — a member of an object; `['a.b']` or `["a.b"]` for a name with other characters.
/// - `[2]` — an element of an array, from 0; `[-1]` is the last.
/// - `[*]` or `.*` — every element of an array, or every member of an object, in order.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Segment: Sendable, Hashable {
        /// The member of this name.
        case name(String)
        /// The element at this index; a negative one counts from the end.
        case index(Int)
        /// Every element or member.
        case all
    }

    /// Why a text is not a path, and where: `offset` counts characters from its start.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, as a phrase: `a ']' is missing`.
        public var reason: String
        /// The character where it went wrong, from 0.
        public var offset: Int

        /// The reason.
        public var description: String { reason }
    }

    /// The steps, in order; none for `$`.
    public let segments: [Segment]
    /// The path as written.
    public let text: String

    /// The path `text` names; throws, saying where, when it is not one.
    public init(parsing text: String) throws(ParseError) {
        self.text = text
        var parser = Parser(Array(text.unicodeScalars))
        segments = try parser.path()
    }

    /// The path of a list of member names, such as `data.items`.
    public init(names: [String]) {
        segments = names.map(Segment.name)
        text = names.joined(separator: ".")
    }

    /// The path of these steps, written as `$` and each step.
    package init(segments: [Segment]) {
        self.segments = segments
        text =
            "$"
            + segments.map { segment in
                switch segment {
                case .name(let name): "." + name
                case .index(let index): "[\(index)]"
                case .all: "[*]"
                }
            }.joined()
    }

    /// Whether the path may select more than one value.
    public var selectsMany: Bool { segments.contains(.all) }

    /// The path as written.
    public var description: String { text }

    /// Two paths are the same when their steps are, however they were written.
    public static func == (lhs: JSONPath, rhs: JSONPath) -> Bool { lhs.segments == rhs.segments }

    /// Hashes the steps, as `==` compares them.
    public func hash(into hasher: inout Hasher) { hasher.combine(segments) }

    /// Every value the path selects in `value`, in document order; empty when it selects none.
    public func select(in value: JSONValue) -> [JSONValue] {
        var current = [value]
        for segment in segments {
            var next: [JSONValue] = []
            for value in current {
                switch (segment, value) {
                case (.name(let name), .object):
                    if let member = value[name] { next.append(member) }
                case (.index(let index), .array(let elements)):
                    let position = index < 0 ? elements.count + index : index
                    if elements.indices.contains(position) { next.append(elements[position]) }
                case (.all, .array(let elements)):
                    next += elements
                case (.all, .object(let members)):
                    next += members.map(\.1)
                default:
                    break
                }
            }
            current = next
        }
        return current
    }

    /// The first value the path selects in `value`, or nil.
    public func first(in value: JSONValue) -> JSONValue? {
        select(in: value).first
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        mutating func path() throws(ParseError) -> [Segment] {
            var segments: [Segment] = []
            if peek == "$" {
                position += 1
            } else if position < scalars.count, peek != "." && peek != "[" {
                // A path without `$` starts with a name.
                segments.append(.name(try name()))
            } else if scalars.isEmpty {
                throw ParseError(reason: "a path is empty: write $ for the whole value", offset: 0)
            }
            while position < scalars.count {
                switch peek {
                case ".":
                    position += 1
                    if peek == "*" {
                        position += 1
                        segments.append(.all)
                    } else {
                        segments.append(.name(try name()))
                    }
                case "[":
                    segments.append(try bracket())
                default:
                    throw ParseError(reason: "expected '.' or '[' after \(describe(segments.last))", offset: position)
                }
            }
            return segments
        }

        private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        /// A member name after a dot: anything up to the next `.` or `[`, not empty.
        private mutating func name() throws(ParseError) -> String {
            let start = position
            while let scalar = peek, scalar != ".", scalar != "[", scalar != "]" {
                guard scalar.properties.isWhitespace == false, scalar.value >= 0x20 else {
                    throw ParseError(reason: "a name holds a space or a control character: quote it as ['…']", offset: position)
                }
                position += 1
            }
            guard position > start else { throw ParseError(reason: "a name is missing", offset: start) }
            var name = ""
            name.unicodeScalars.append(contentsOf: scalars[start..<position])
            return name
        }

        /// `[n]`, `[*]`, `['name']` or `["name"]`.
        private mutating func bracket() throws(ParseError) -> Segment {
            let open = position
            position += 1
            let segment: Segment
            switch peek {
            case "*":
                position += 1
                segment = .all
            case "'", "\"":
                let quote = peek!
                position += 1
                let start = position
                while let scalar = peek, scalar != quote { position += 1 }
                guard peek == quote else { throw ParseError(reason: "a quoted name is not closed", offset: start - 1) }
                var name = ""
                name.unicodeScalars.append(contentsOf: scalars[start..<position])
                position += 1
                segment = .name(name)
            default:
                let start = position
                if peek == "-" { position += 1 }
                while let scalar = peek, ("0"..."9").contains(scalar) { position += 1 }
                var digits = ""
                digits.unicodeScalars.append(contentsOf: scalars[start..<position])
                guard let index = Int(digits) else {
                    throw ParseError(reason: "expected an index, '*' or a quoted name inside '[…]'", offset: start)
                }
                segment = .index(index)
            }
            guard peek == "]" else { throw ParseError(reason: "a ']' is missing", offset: position < scalars.count ? position : open) }
            position += 1
            return segment
        }

        private func describe(_ segment: Segment?) -> String {
            switch segment {
            case .name(let name)?: "'\(name)'"
            case .index(let index)?: "[\(index)]"
            case .all?: "[*]"
            case nil: "'$'"
            }
        }
    }
}
