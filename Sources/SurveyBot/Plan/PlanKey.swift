/// One key of the plan format: where it sits, what it takes, its default, what it means, and
/// where its value lands in a `Plan`.
///
/// `PlanKeys.all` lists every key once. The decoder walks a plan with it, unknown keys are
/// suggested from it, `--set` splits its paths with it, and the key reference in
/// docs/plan-format.md is checked against it, and the plan digest is made from it
/// (`Plan+Digest.swift`). Adding a key is one entry there and its field.
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

    /// How the key goes into the plan digest (`Plan.canonicalEntries`): every key says, so that
    /// none can escape it.
    enum Digest: Sendable {
        /// A line `key: value`, always.
        case always(@Sendable (Plan) -> String)
        /// A line only when the plan gives a value other than the default: a key added after
        /// digests were first written, so that a plan without it keeps the digest it had.
        case whenGiven(@Sendable (Plan) -> String?)
        /// Left out on purpose: how or where a run goes rather than what it does (its threads,
        /// its reports). Blocks, which hold no value, too.
        case leftOut
        /// Digested in the line of the key at this path: a journey step's keys in `journey`'s.
        case within(String)
    }

    /// Which values a key's line is written for, when the digest writes it from the key's value.
    enum DigestRule: Sendable {
        /// Every value.
        case always
        /// A value other than the default only (`Digest.whenGiven`).
        case whenGiven
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
    let digest: Digest
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
    /// A key holding one value of `kind`, written to `field`, digested as its value.
    static func value<T: DigestValue & Equatable & Sendable>(
        _ path: String, _ kind: ValueKind<T>, default value: T, into field: WritableKeyPath<Plan, T> & Sendable,
        digested rule: DigestRule = .always, _ doc: String
    ) -> PlanKey {
        let text: @Sendable (Plan) -> String = { $0[keyPath: field].digestText(in: $0, at: path) }
        let digest: Digest =
            switch rule {
            case .always: .always(text)
            case .whenGiven: .whenGiven { $0[keyPath: field] == value ? nil : text($0) }
            }
        return self.value(path, kind, default: value, into: field, digest: digest, doc)
    }

    /// A key holding one value of `kind`, written to `field`, digested as `digest` says.
    static func value<T: Sendable>(
        _ path: String, _ kind: ValueKind<T>, default value: T, into field: WritableKeyPath<Plan, T> & Sendable, digest: Digest,
        _ doc: String
    ) -> PlanKey {
        PlanKey(
            path: path, shape: .value, kind: kind.summary, defaultText: "`\(kind.format(value))`", doc: doc, digest: digest,
            applyDefault: { $0[keyPath: field] = value },
            decode: { decoder, entry, plan in
                if let parsed = decoder.read(entry, path, kind) { plan[keyPath: field] = parsed }
            })
    }

    /// A key whose value is absent unless given, written to `field`, digested as its value or,
    /// when absent, as `absent`.
    static func optional<T: DigestValue & Sendable>(
        _ path: String, _ kind: ValueKind<T>, default text: String = "none", into field: WritableKeyPath<Plan, T?> & Sendable,
        absent: String = "none", _ doc: String
    ) -> PlanKey {
        optional(
            path, kind, default: text, into: field, digest: .always { $0[keyPath: field]?.digestText(in: $0, at: path) ?? absent }, doc)
    }

    /// A key whose value is absent unless given, written to `field`, digested as `digest` says.
    static func optional<T: Sendable>(
        _ path: String, _ kind: ValueKind<T>, default text: String = "none", into field: WritableKeyPath<Plan, T?> & Sendable,
        digest: Digest, _ doc: String
    ) -> PlanKey {
        PlanKey(
            path: path, shape: .value, kind: kind.summary, defaultText: text, doc: doc, digest: digest,
            applyDefault: { $0[keyPath: field] = nil },
            decode: { decoder, entry, plan in
                if let parsed = decoder.read(entry, path, kind) { plan[keyPath: field] = parsed }
            })
    }

    /// A block of the keys listed under it.
    static func block(_ path: String, _ doc: String) -> PlanKey {
        PlanKey(
            path: path, shape: .block, kind: "block", defaultText: "see below", doc: doc, digest: .leftOut, applyDefault: { _ in },
            decode: { _, _, _ in })
    }

    /// A key read by its own code: lists, mappings of data, and keys that set more than one field.
    static func custom(
        _ path: String, _ shape: Shape = .value, kind: String, default text: String, _ doc: String, digest: Digest,
        applyDefault: @escaping @Sendable (inout Plan) -> Void = { _ in },
        decode: @escaping @Sendable (inout PlanDecoder, PlanEntry, inout Plan) -> Void
    ) -> PlanKey {
        PlanKey(
            path: path, shape: shape, kind: kind, defaultText: text, doc: doc, digest: digest, applyDefault: applyDefault, decode: decode)
    }
}
