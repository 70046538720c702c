/// A scalar as written in a plan: a bare word or a quoted string, after `${VAR}` substitution.
struct PlanScalar: Sendable, Hashable {
    /// The text after escapes and environment substitution, with where each part came from.
    var source: PlanText
    /// True for `"…"` and `'…'`: a quoted scalar is never read as a number or keyword by kind.
    var isQuoted: Bool
    var location: SourceLocation

    init(_ source: PlanText, at location: SourceLocation, isQuoted: Bool = false) {
        self.source = source
        self.location = location
        self.isQuoted = isQuoted
    }

    /// A scalar written in the plan, none of it from the environment.
    init(_ text: String, at location: SourceLocation, isQuoted: Bool = false) {
        self.init(PlanText(text), at: location, isQuoted: isQuoted)
    }

    /// The text after escapes and environment substitution: what is sent.
    var text: String { source.value }

    /// The text as every error and report shows it: `${NAME}` for each part from the environment.
    var display: String { source.display }

    /// True when any part of the text came from an environment variable; such values are
    /// secrets until proven otherwise and are shown by the variable's name.
    var isFromEnvironment: Bool { source.isFromEnvironment }
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
        case .scalar(let s): return "'\(s.display)'"
        case .list: return "a list"
        case .mapping: return "a mapping"
        case .empty: return "nothing"
        case .invalid: return "an invalid value"
        }
    }
}
