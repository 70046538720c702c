/// Command-line changes to a plan: `--concurrency 50`, `--set retry.submit.attempts=4`, ….
///
/// Overrides are applied to the parsed tree before it is decoded, so they pass the same checks
/// with the same messages as plan files; their errors name the option instead of a line.
struct PlanOverrides: Sendable, Hashable {
    struct Override: Sendable, Hashable {
        /// Key path, such as `["retry", "submit", "attempts"]`.
        var path: [String]
        var value: String
        /// The option as the user typed it, for error messages: `--set concurrency=0`.
        var spelling: String
    }

    private(set) var overrides: [Override] = []

    init() {}

    var isEmpty: Bool { overrides.isEmpty }

    /// An override of one key by its own option, such as `--concurrency 50`; `spelling` is the
    /// option as typed, `option value` unless given (a flag such as `--insecure` has no value).
    mutating func set(_ key: String, to value: String, option: String, spelling: String? = nil) {
        let shown = key == Plan.proxyKey ? URLDisplay.redactingProxy(value) : value
        overrides.append(Override(path: Self.keyPath(key), value: value, spelling: spelling ?? "\(option) \(shown)"))
    }

    /// A `--set key.path=value` override. Throws a message when the text has no `=` or no key.
    mutating func set(assignment: String) throws(OverrideError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw OverrideError(description: "--set expects key.path=value, found '\(URLDisplay.redacting(assignment))'")
        }
        let key = String(assignment[..<equals])
        let value = String(assignment[assignment.index(after: equals)...])
        let path = Self.keyPath(key)
        guard !key.isEmpty, path.allSatisfy({ !$0.isEmpty }) else {
            throw OverrideError(description: "--set expects key.path=value, found '\(assignment)'")
        }
        guard path.count <= PlanLimits.maxDepth else {
            throw OverrideError(
                description:
                    "--set: a key path has at most \(PlanLimits.maxDepth) parts, found \(path.count) in '\(assignment.prefix(80))…'")
        }
        // A proxy's credentials are never shown, even in the option that gave them.
        let shown = path == [Plan.proxyKey] ? "\(key)=\(URLDisplay.redactingProxy(value))" : assignment
        overrides.append(Override(path: path, value: value, spelling: "--set \(shown)"))
    }

    struct OverrideError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Splits `a.b.c` on dots, except after a key whose entries are data (`PlanKey.Shape.entries`):
    /// a threshold name (`thresholds.submit.p95`) or a header name keeps its own dots. A
    /// threshold's option is the part after its name: `thresholds.submit.p95.abort`, and so is
    /// a misspelt one after a metric (`thresholds.submit.p95.abrot`), for the decoder to name it.
    static func keyPath(_ key: String) -> [String] {
        let path = dataKeyPath(key)
        if path.count == 2, path[0] == "thresholds" {
            let name = path[1].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if name.count == 3, Threshold.optionKeys.contains(name[2]) || Threshold.Metric(rawValue: name[1]) != nil {
                return ["thresholds", name[0] + "." + name[1], name[2]]
            }
        }
        return path
    }

    private static func dataKeyPath(_ key: String) -> [String] {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // Every prefix of a key's path is a key (a block): the walk ends at the first that is
        // not, so a path of a hundred thousand parts costs no more than one of three.
        var prefix = ""
        for index in parts.indices.dropLast() {
            prefix += (index == 0 ? "" : ".") + parts[index]
            guard let key = PlanKeys.byPath[prefix] else { break }
            if key.shape == .entries { return Array(parts[...index]) + [parts[(index + 1)...].joined(separator: ".")] }
        }
        return parts
    }

    /// Applies every override to a parsed plan tree, in order. Setting the load of one model
    /// removes the other model's keys (`--rate` drops `respondents`, and the reverse), so that
    /// a flag can switch a plan between closed and open.
    func apply(to root: PlanNode, environment: [String: String]) -> (PlanNode, [Diagnostic]) {
        var root = root
        var diagnostics: [Diagnostic] = []
        for override in overrides {
            let (value, errors) = PlanParser.parseValue(override.value, origin: .option(override.spelling), environment: environment)
            diagnostics += errors
            let location = SourceLocation(origin: .option(override.spelling), line: 1, column: 1)
            if override.path.count == 1 {
                switch override.path[0] {
                case "rate", "ramp": root.removeEntry("respondents")
                case "respondents":
                    root.removeEntry("rate")
                    root.removeEntry("ramp")
                default: break
                }
            }
            var path = override.path
            if path.count >= 2, path[0] == "thresholds", let existing = root.node(at: path.prefix(2)) {
                // A threshold keeps its other half: a comparison set on a block is its `check`,
                // and an option set on the short form makes it a block around its comparison.
                if path.count == 2, case .mapping = existing, case .scalar = value {
                    path.append("check")
                } else if path.count == 3, case .scalar = existing {
                    root.setValue(
                        .mapping([PlanEntry(key: "check", keyLocation: existing.location, value: existing)], at: existing.location),
                        at: path.prefix(2), location: location)
                }
            }
            root.setValue(value, at: path[...], location: location)
        }
        return (root, diagnostics)
    }
}

extension PlanNode {
    /// Sets the value at a key path, creating mappings on the way and replacing whatever was
    /// not a mapping.
    mutating func setValue(_ value: PlanNode, at path: ArraySlice<String>, location: SourceLocation) {
        guard let key = path.first else {
            self = value
            return
        }
        var entries: [PlanEntry]
        let at: SourceLocation
        if case .mapping(let existing, let existingLocation) = self {
            entries = existing
            at = existingLocation
        } else {
            entries = []
            at = location
        }
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index].value.setValue(value, at: path.dropFirst(), location: location)
            if path.count == 1 { entries[index].keyLocation = location }
        } else {
            var child = PlanNode.empty(at: location)
            child.setValue(value, at: path.dropFirst(), location: location)
            entries.append(PlanEntry(key: key, keyLocation: location, value: child))
        }
        self = .mapping(entries, at: at)
    }

    /// The node at a key path, if there is one.
    func node(at path: ArraySlice<String>) -> PlanNode? {
        guard let key = path.first else { return self }
        guard case .mapping(let entries, _) = self, let entry = entries.first(where: { $0.key == key }) else { return nil }
        return entry.value.node(at: path.dropFirst())
    }

    mutating func removeEntry(_ key: String) {
        if case .mapping(let entries, let at) = self {
            self = .mapping(entries.filter { $0.key != key }, at: at)
        }
    }
}
