/// Reads the text of a plan file into a tree of `PlanNode`s: lines (`PlanLines`), tokens
/// (`PlanLexer`, with `${…}` interpolation by `PlanInterpolation`), then the tree by
/// indentation (`PlanTree`). Giving the tree meaning is `PlanDecoder`'s job.
///
/// The format is a small, YAML-like language: `key: value` lines nested by indentation with
/// spaces, `# comments`, bare and quoted scalars, inline `[a, b]` and block `- item` lists, and
/// `${NAME}` / `${NAME:-default}` environment substitution. Every error is reported, not only
/// the first: each stage recovers line by line.
enum PlanParser {
    /// Parses a whole file. The root is always a mapping (empty for an empty file).
    static func parse(_ text: String, path: String, environment: [String: String]) -> (root: PlanNode, diagnostics: [Diagnostic]) {
        var lexer = PlanLexer(origin: .file(path), environment: environment)
        var lexed: [PlanLexer.LexedLine] = []
        var tooLong: [Diagnostic] = []
        // The indentation of the last line too broken to place: the lines indented under it are
        // its block, left out with it rather than taken into the block above it.
        var brokenIndent: Int?
        for (index, line) in PlanLines.split(text).enumerated() {
            if let crossing = PlanLimits.overlongLineIndex(line) {
                // Left out, like any line too broken to place: one error, not one per token.
                tooLong.append(
                    Diagnostic(
                        "line \(index + 1) is longer than 64 KiB (\(PlanLimits.maxLineBytes) bytes), the limit for a line of a plan",
                        at: SourceLocation(origin: .file(path), line: index + 1, column: crossing + 1)))
                continue
            }
            let errors = lexer.diagnostics.count
            if let lexedLine = lexer.lex(line: line, number: index + 1) {
                if let brokenIndent, lexedLine.indent > brokenIndent { continue }
                brokenIndent = nil
                lexed.append(lexedLine)
            } else if lexer.diagnostics.count > errors {
                let indent = line.prefix { $0 == " " || $0 == "\t" }.count
                if brokenIndent.map({ indent <= $0 }) ?? true { brokenIndent = indent }
            }
        }
        var tree = PlanTree(lines: lexed, path: path)
        let entries = tree.parseMapping(indent: 0, first: nil)
        if tree.index < lexed.count {
            // Only reachable if the top level could not take a line; report it rather than drop it.
            let line = lexed[tree.index]
            tree.error("bad indentation", line: line.number, column: line.indent + 1)
        }
        let root = PlanNode.mapping(entries, at: SourceLocation(origin: .file(path), line: 1, column: 1))
        return (root, tooLong + lexer.diagnostics + tree.diagnostics)
    }

    /// Parses one value as it would appear after `key: ` — used for `--set key=value` overrides.
    static func parseValue(_ text: String, origin: SourceLocation.Origin, environment: [String: String]) -> (PlanNode, [Diagnostic]) {
        var lexer = PlanLexer(origin: origin, environment: environment)
        var cursor = LineCursor(scalars: Array(text.unicodeScalars), number: 1, origin: origin)
        let node = lexer.lexValue(&cursor) ?? .scalar(PlanScalar("", at: SourceLocation(origin: origin, line: 1, column: 1)))
        return (node, lexer.diagnostics)
    }
}
