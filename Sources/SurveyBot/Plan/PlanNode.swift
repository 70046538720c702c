/// A scalar as written in a plan: a bare word or a quoted string, after `${VAR}` substitution.
struct PlanScalar: Sendable, Hashable {
    /// The text after escapes and environment substitution.
    var text: String
    /// True for `"…"` and `'…'`: a quoted scalar is never read as a number or keyword by kind.
    var isQuoted: Bool
    /// True when any part of the text came from an environment variable; such values are
    /// secrets until proven otherwise and are redacted in every report.
    var isFromEnvironment: Bool
    var location: SourceLocation

    init(_ text: String, at location: SourceLocation, isQuoted: Bool = false, isFromEnvironment: Bool = false) {
        self.text = text
        self.location = location
        self.isQuoted = isQuoted
        self.isFromEnvironment = isFromEnvironment
    }
}

/// One `key: value` of a mapping.
struct PlanEntry: Sendable, Hashable {
    var key: String
    var keyLocation: SourceLocation
    var value: PlanNode

    init(key: String, keyLocation: SourceLocation, value: PlanNode) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}

/// A node of a parsed plan: the syntax, before any meaning is given to keys.
indirect enum PlanNode: Sendable, Hashable {
    case scalar(PlanScalar)
    case list([PlanNode], at: SourceLocation)
    case mapping([PlanEntry], at: SourceLocation)
    /// `key:` with nothing after it and nothing indented under it.
    case empty(at: SourceLocation)
    /// A value whose syntax was wrong; the error has already been reported, so readers skip it.
    case invalid(at: SourceLocation)

    var location: SourceLocation {
        switch self {
        case .scalar(let s): return s.location
        case .list(_, let at), .mapping(_, let at), .empty(let at), .invalid(let at): return at
        }
    }

    /// How the node reads in an "expected X, found Y" message.
    var kindDescription: String {
        switch self {
        case .scalar(let s): return "'\(s.text)'"
        case .list: return "a list"
        case .mapping: return "a mapping"
        case .empty: return "nothing"
        case .invalid: return "an invalid value"
        }
    }
}
