import Foundation

/// Which recorded requests a step of the plan stands for: its method, and its path with each
/// `${…}` matching any text within its segment (`/survey/${session.sid}/page` matches
/// `/survey/ab12/page`). The query is left aside: its values are the ones a recording and a
/// replay differ in.
struct PathPattern: Sendable, Hashable {
    /// One piece of a segment: text to match as it is, or any text.
    enum Piece: Sendable, Hashable {
        case literal(String)
        case any
    }

    let method: String
    /// The path's segments between `/`, each a list of pieces.
    let segments: [[Piece]]

    /// The pattern of a step's `method` and `path` template, under `basePath` (the recorded
    /// target's, which the plan's paths follow).
    init(method: String, path: String, basePath: String = "") {
        self.method = method
        let full = basePath + (path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path)
        segments = full.split(separator: "/", omittingEmptySubsequences: false).map(Self.pieces)
    }

    /// Whether `exchange` is a request this pattern stands for.
    func matches(_ exchange: Exchange) -> Bool {
        guard exchange.method == method else { return false }
        let parts = exchange.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == segments.count else { return false }
        return zip(segments, parts).allSatisfy { pieces, part in
            Self.matches(pieces[...], Self.decoded(part)[...])
        }
    }

    /// A segment of a template as pieces: each `${…}` is `.any`, the rest literal text, decoded.
    private static func pieces(_ segment: Substring) -> [Piece] {
        var pieces: [Piece] = []
        var rest = segment
        while let open = rest.range(of: "${") {
            if open.lowerBound > rest.startIndex { pieces.append(.literal(decoded(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                rest = rest[open.lowerBound...]
                break
            }
            if pieces.last != .any { pieces.append(.any) }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.literal(decoded(rest))) }
        return pieces
    }

    /// Whether `text` is matched by `pieces`, each `.any` taking any run of characters.
    private static func matches(_ pieces: ArraySlice<Piece>, _ text: Substring) -> Bool {
        guard let first = pieces.first else { return text.isEmpty }
        switch first {
        case .literal(let literal):
            return text.hasPrefix(literal) && matches(pieces.dropFirst(), text.dropFirst(literal.count))
        case .any:
            var rest = text
            while true {
                if matches(pieces.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
    }

    /// A path segment with its percent-escapes decoded, or as it is when they are not valid.
    private static func decoded(_ segment: Substring) -> String {
        String(segment).removingPercentEncoding ?? String(segment)
    }
}
