/// One key of the plan format: where it sits, what it takes, its default, what it means, and
/// where its value lands in a `Plan`.
///
/// `PlanKeys.all` lists every key once. The decoder walks a plan with it, unknown keys are
/// suggested from it, `--set` splits its paths with it, and the key reference in
/// docs/plan-format.md is checked against it. Adding a key is one entry there and its field.
struct PlanKey: Sendable {
    enum Shape: Sendable, Equatable {
        /// A scalar or a list.
        case value
        /// A mapping of the keys listed under this one.
        case block
        /// A mapping whose keys are data: question ids, header names, threshold names.
        case entries
        /// A mapping of named blocks, each of the same keys: the steps of `journey`
        /// (`JourneyKeys`). `--set journey.open.request=…` splits on every dot.
        case steps
    }

    /// Dotted, from the top: `retry.submit.attempts`.
    let path: String
    let shape: Shape
    /// The kind of value, as the key reference names it: `duration > 0`.
    let kind: String
    /// The default, as the key reference shows it.
    let defaultText: String
    /// One line for the key reference.
    let doc: String
    /// Sets the key's default in a plan.
    let applyDefault: @Sendable (inout Plan) -> Void
    /// Reads the key's entry into a plan, reporting what is wrong to the decoder. Blocks have
    /// none: the decoder walks into them.
    let decode: @Sendable (inout PlanDecoder, PlanEntry, inout Plan) -> Void

    /// The last part of the path: the key as a plan writes it.
    var name: String { path.split(separator: ".").last.map(String.init) ?? path }

    /// The path of the block the key sits in; empty at the top level.
    var parent: String {
        guard let dot = path.lastIndex(of: ".") else { return "" }
        return String(path[..<dot])
    }
}

extension PlanKey {
    /// A key holding one value of `kind`, written to `field`.
    static func value<T: Sendable>(
        _ path: String, _ kind: ValueKind<T>, default value: T, into field: WritableKeyPath<Plan, T> & Sendable, _ doc: String
    ) -> PlanKey {
        PlanKey(
            path: path, shape: .value, kind: kind.summary, defaultText: "`\(kind.format(value))`", doc: doc,
            applyDefault: { $0[keyPath: field] = value },
            decode: { decoder, entry, plan in
                if let parsed = decoder.read(entry, path, kind) { plan[keyPath: field] = parsed }
            })
    }

    /// A key whose value is absent unless given, written to `field`.
    static func optional<T: Sendable>(
        _ path: String, _ kind: ValueKind<T>, default text: String = "none", into field: WritableKeyPath<Plan, T?> & Sendable,
        _ doc: String
    ) -> PlanKey {
        PlanKey(
            path: path, shape: .value, kind: kind.summary, defaultText: text, doc: doc, applyDefault: { $0[keyPath: field] = nil },
            decode: { decoder, entry, plan in
                if let parsed = decoder.read(entry, path, kind) { plan[keyPath: field] = parsed }
            })
    }

    /// A block of the keys listed under it.
    static func block(_ path: String, _ doc: String) -> PlanKey {
        PlanKey(
            path: path, shape: .block, kind: "block", defaultText: "see below", doc: doc, applyDefault: { _ in },
            decode: { _, _, _ in })
    }

    /// A key read by its own code: lists, mappings of data, and keys that set more than one field.
    static func custom(
        _ path: String, _ shape: Shape = .value, kind: String, default text: String, _ doc: String,
        applyDefault: @escaping @Sendable (inout Plan) -> Void = { _ in },
        decode: @escaping @Sendable (inout PlanDecoder, PlanEntry, inout Plan) -> Void
    ) -> PlanKey {
        PlanKey(path: path, shape: shape, kind: kind, defaultText: text, doc: doc, applyDefault: applyDefault, decode: decode)
    }
}
