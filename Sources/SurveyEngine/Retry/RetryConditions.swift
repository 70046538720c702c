import SurveyWire

/// Which attempt outcomes a retry policy retries: the plan's `on: [400, 5xx, timeout, connection]`.
public struct RetryConditions: Sendable, Hashable, CustomStringConvertible {
    /// Exact status codes, such as 400 or 429.
    var statuses: Set<Int>
    /// Status classes by their first digit: 5 for `5xx`.
    private var statusClasses: Set<Int>
    var errors: Set<ErrorKind>
    /// The names as given, for display and for the plan as run.
    private(set) var names: [String]

    /// No conditions: they match nothing, so a policy with them never retries.
    public init() {
        statuses = []
        statusClasses = []
        errors = []
        names = []
    }

    /// Conditions from names; throws the first name that is not understood.
    public init(names: [String]) throws(UnknownName) {
        self.init()
        for name in names { try add(name) }
    }

    /// A name that is not a retry condition; `errorNames` lists the words that are.
    public struct UnknownName: Error, Sendable, Equatable {
        var name: String
    }

    /// Every word `add` understands besides status codes and classes (former names of kinds,
    /// which it also takes, left out).
    public static let errorNames: [String] = ["connection", "malformed", "tls"] + ErrorKind.allCases.map(\.rawValue)

    /// Adds one condition, in any case: a status code from 100 to 599, a class from `1xx` to
    /// `5xx`, `connection` (refused, reset — TCP's or an HTTP/2 stream's — or closed), `malformed`, or an `ErrorKind` raw value
    /// such as `timeout` (or a former name: `body_too_large`). Anything else throws and leaves
    /// the conditions as they were.
    public mutating func add(_ name: String) throws(UnknownName) {
        let lower = name.lowercased()
        if lower.count == 3, let digit = lower.first?.wholeNumberValue, lower.first?.isASCII == true {
            if lower.hasSuffix("xx"), (1...5).contains(digit) {
                statusClasses.insert(digit)
            } else if let code = Int(lower), (100...599).contains(code) {
                statuses.insert(code)
            } else {
                throw UnknownName(name: name)
            }
        } else if lower == "connection" {
            errors.formUnion([.connectionRefused, .connectionReset, .connectionClosed, .streamReset])
        } else if lower == "tls" {
            errors.formUnion([.tlsHandshake, .tlsCertificate])
        } else if lower == "malformed" {
            errors.insert(.malformedResponse)
        } else if let kind = ErrorKind(name: lower) {
            errors.insert(kind)
            names.append(kind.rawValue)  // a former name as the kind is called now
            return
        } else {
            throw UnknownName(name: name)
        }
        names.append(lower)
    }

    func matches(status: Int) -> Bool {
        statuses.contains(status) || statusClasses.contains(status / 100)
    }

    func matches(_ error: ErrorKind) -> Bool {
        errors.contains(error)
    }

    /// The names as added, lowercased: `[5xx, timeout]`.
    public var description: String { "[" + names.joined(separator: ", ") + "]" }

    /// Equal when they retry the same outcomes, however the names were spelt or ordered:
    /// `connection` equals its three error kinds.
    public static func == (lhs: RetryConditions, rhs: RetryConditions) -> Bool {
        lhs.statuses == rhs.statuses && lhs.statusClasses == rhs.statusClasses && lhs.errors == rhs.errors
    }

    /// Hashes what `==` compares: the outcomes retried, not the names.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(statuses)
        hasher.combine(statusClasses)
        hasher.combine(errors)
    }
}
