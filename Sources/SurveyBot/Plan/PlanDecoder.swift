import SurveyEngine

/// The last stage of reading a plan: gives the tree meaning with the table of keys
/// (`PlanKeys`), starting from every default, and collects every error rather than stopping
/// at the first. Checks between keys follow in `PlanDecoder+Checks.swift`.
struct PlanDecoder {
    private(set) var diagnostics: [Diagnostic] = []
    /// What a valid plan is told about (`Plan.warnings`): never a reason to refuse it.
    private(set) var warnings: [Diagnostic] = []
    /// The values that took any part from the environment, by key path (`Plan.environmentText`).
    private(set) var environmentText: [String: [PlanText]] = [:]
    /// The entries read, by key path: checks between keys need their places.
    var seen: [String: PlanEntry] = [:]
    /// Cross-checks between keys (answers covering every builtin question) only run on a tree
    /// without syntax errors: a line dropped by a syntax error would only cause a second error.
    var crossChecks = true
    /// The values read that hold run-time variables (`${row.…}`), checked once every key is read.
    var templates: [TemplateUse] = []
    /// Whether reading `journey` found errors: the checks across its steps then wait for them
    /// to be fixed, rather than adding errors that follow from them.
    var journeyHasErrors = false
    /// Where each entry of `types` was written, for the checks of its shapes.
    var typeLocations: [String: SourceLocation] = [:]
    /// Where each answer read from the survey (`choice()`, …) was written, by its key path
    /// (`answers.q1`, `types.MC.answer`), for the checks of what it needs.
    var pickerLocations: [String: SourceLocation] = [:]

    /// Decodes the root mapping. Returns nil when any error was found.
    mutating func decode(_ root: PlanNode, defaultName: String) -> Plan? {
        var plan = Plan.defaults(name: defaultName)
        decodeBlock(root, path: "", into: &plan)
        check(&plan, root: root.location)
        guard diagnostics.isEmpty else { return nil }
        plan.environmentText = environmentText
        plan.warnings = warnings
        // The name is only ever shown, never sent: only its shown form is kept.
        if let name = environmentText["name"]?.first { plan.name = name.display }
        return plan
    }

    /// Reads every entry of a block by the keys the table lists under `path`.
    private mutating func decodeBlock(_ node: PlanNode, path: String, into plan: inout Plan) {
        decodeBlock(node, path: path, keys: PlanKeys.all, into: &plan)
    }

    /// Reads every entry of the block at `path` by the keys of `keys` that sit in it, and the
    /// blocks under it the same way: the table's, or a journey step's (`JourneyKeys`).
    mutating func decodeBlock(_ node: PlanNode, path: String, keys: [PlanKey], into plan: inout Plan) {
        let known = keys.filter { $0.parent == path }
        for entry in entries(node, at: path, known: known.map(\.name)) {
            guard let key = known.first(where: { $0.name == entry.key }) else { continue }
            seen[key.path] = entry
            if key.shape == .block {
                decodeBlock(entry.value, path: key.path, keys: keys, into: &plan)
            } else {
                key.decode(&self, entry, &plan)
            }
        }
    }

    // MARK: - Reading nodes

    mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(message, at: location))
    }

    mutating func warning(_ message: String, at location: SourceLocation) {
        warnings.append(Diagnostic(message, at: location, severity: .warning))
    }

    /// Adds an error found elsewhere than in the plan's text: in a data file it names.
    mutating func report(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    /// The entries of a mapping in source order. With `known`, an entry whose key is not in it
    /// is reported with a did-you-mean and left out.
    mutating func entries(_ node: PlanNode?, at path: String, known: [String]? = nil) -> [PlanEntry] {
        guard let node else { return [] }
        switch node {
        case .mapping(let entries, _):
            guard let known else { return entries }
            return entries.filter { entry in
                if known.contains(entry.key) { return true }
                let place = path.isEmpty ? "" : " in '\(path)'"
                if let suggestion = Suggestions.closest(to: entry.key, in: known) {
                    error("unknown key '\(entry.key)'\(place) (did you mean '\(suggestion)'?)", at: entry.keyLocation)
                } else {
                    error("unknown key '\(entry.key)'\(place); known keys: \(known.joined(separator: ", "))", at: entry.keyLocation)
                }
                return false
            }
        case .empty, .invalid:
            return []
        case .scalar, .list:
            error("expected a block of keys under '\(path)', found \(node.kindDescription)", at: node.location)
            return []
        }
    }

    /// The scalar of an entry, or nil after reporting what was there instead.
    mutating func scalar(_ node: PlanNode, keyLocation: SourceLocation, path: String, expected: String) -> PlanScalar? {
        switch node {
        case .scalar(let s):
            if s.isFromEnvironment { environmentText[path] = [s.source] }
            return s
        case .invalid:
            return nil
        case .empty:
            error("'\(path)' needs a value: expected \(expected)", at: keyLocation)
            return nil
        case .list, .mapping:
            error("expected \(expected) for '\(path)', found \(node.kindDescription)", at: node.location)
            return nil
        }
    }

    /// Parses a scalar of the given kind; every error names the key and the expected kind.
    mutating func parse<T>(_ s: PlanScalar, _ path: String, _ kind: ValueKind<T>) -> T? {
        switch kind.parse(s.text) {
        case .value(let v): return v
        case .wrongKind:
            error("expected \(kind.expected) for '\(path)', found '\(s.display)'", at: s.location)
        case .invalid(let reason) where !s.isFromEnvironment:
            error(reason, at: s.location)
        case .invalidAt(let reason, let offset) where !s.isFromEnvironment:
            var at = s.location
            at.column += offset + (s.isQuoted ? 1 : 0)
            error(reason, at: at)
        case .invalid(let reason), .invalidAt(let reason, _):
            // The reason may quote the value: each part of it from the environment is written
            // `${NAME}` instead, and what is wrong with it still said.
            error(s.source.redacting(reason), at: s.location)
        }
        return nil
    }

    /// The entry's value as one scalar of `kind`, or nil after reporting why not.
    mutating func read<T>(_ entry: PlanEntry, _ path: String, _ kind: ValueKind<T>) -> T? {
        guard let s = scalar(entry.value, keyLocation: entry.keyLocation, path: path, expected: kind.expected) else { return nil }
        return parse(s, path, kind)
    }

    /// A list of scalars; a single scalar counts as a list of one. Nil after an error.
    mutating func scalarList(_ entry: PlanEntry, _ path: String, expected: String) -> [PlanScalar]? {
        switch entry.value {
        case .scalar(let s):
            if s.isFromEnvironment { environmentText[path] = [s.source] }
            return [s]
        case .list(let items, _):
            var scalars: [PlanScalar] = []
            for item in items {
                if let s = scalar(item, keyLocation: item.location, path: path, expected: expected) { scalars.append(s) }
            }
            // The whole list, in order, so that it can be shown item by item.
            if scalars.contains(where: \.isFromEnvironment) { environmentText[path] = scalars.map(\.source) }
            return scalars
        case .empty:
            return []
        case .invalid:
            return nil
        case .mapping:
            error("expected a list of \(expected) for '\(path)', found a mapping", at: entry.value.location)
            return nil
        }
    }
}
