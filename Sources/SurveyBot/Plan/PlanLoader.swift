import Foundation

/// Reads plan files: text → tree → overrides → a validated `Plan`, or every error found.
struct PlanLoader: Sendable {
    var environment: [String: String]

    init(environment: [String: String]) {
        self.environment = environment
    }

    /// Loads and validates the plan at `path`, applying `overrides` on top.
    func load(path: String, overrides: PlanOverrides = PlanOverrides()) -> Result<Plan, PlanErrors> {
        switch FileAccess.read(path, upTo: PlanLimits.maxFileBytes + 4) {
        case .success(let bytes):
            return load(data: bytes, path: path, overrides: overrides)
        case .failure(let error):
            return .failure(
                PlanErrors([
                    Diagnostic("cannot read the plan: \(error.reason)", at: SourceLocation(origin: .file(path), line: 1, column: 1))
                ]))
        }
    }

    /// Validates a plan file's bytes as if read from `path`: a file over 1 MiB, or one that is
    /// not UTF-8 text (a NUL, an invalid byte), is one error at the place it goes wrong, and
    /// nothing of it is parsed.
    func load(data bytes: [UInt8], path: String, overrides: PlanOverrides = PlanOverrides()) -> Result<Plan, PlanErrors> {
        if let problem = PlanLimits.textProblem(bytes, path: path) {
            return .failure(PlanErrors([problem]))
        }
        return load(text: String(decoding: bytes, as: UTF8.self), path: path, overrides: overrides)
    }

    /// Validates plan text as if read from `path`.
    func load(text: String, path: String, overrides: PlanOverrides = PlanOverrides()) -> Result<Plan, PlanErrors> {
        let (tree, syntaxErrors) = PlanParser.parse(text, path: path, environment: environment)
        let (root, overrideErrors) = overrides.apply(to: tree, environment: environment)
        var decoder = PlanDecoder()
        decoder.crossChecks = syntaxErrors.isEmpty && overrideErrors.isEmpty
        var plan = decoder.decode(root, defaultName: Self.defaultName(for: path))
        var diagnostics = syntaxErrors + overrideErrors + decoder.diagnostics
        // The environment's proxy, once the plan is known to be sound: its errors name the variable.
        if diagnostics.isEmpty, let errors = plan?.resolveProxy(environment: environment) { diagnostics += errors }
        func sourceLines() -> [String] { PlanLines.split(text).map { String(String.UnicodeScalarView($0)) } }
        if var plan, diagnostics.isEmpty {
            if !plan.warnings.isEmpty {
                let lines = sourceLines()
                plan.warnings = plan.warnings.map { Self.located($0, path: path, lines: lines) }
            }
            return .success(plan)
        }
        let lines = sourceLines()
        let located = Set(diagnostics).count == diagnostics.count ? diagnostics : diagnostics.uniqued()
        return .failure(
            PlanErrors(
                located.sortedBySource().map { Self.located($0, path: path, lines: lines) }))
    }

    /// A diagnostic with its source line, secrets of URLs redacted.
    private static func located(_ diagnostic: Diagnostic, path: String, lines: [String]) -> Diagnostic {
        var d = diagnostic
        // Only the plan's own lines are quoted: a data file's are secrets.
        if case .file(let file) = d.location.origin, file == path, d.location.line >= 1, d.location.line <= lines.count {
            d.sourceLine = Self.shownLine(lines[d.location.line - 1])
        }
        // User info and query values are secrets wherever they were written.
        d.message = URLDisplay.redacting(d.message)
        if case .option(let spelling) = d.location.origin { d.location.origin = .option(URLDisplay.redacting(spelling)) }
        return d
    }

    /// A line of the plan as an error quotes it: URLs' secrets as `***`, and a `proxy` line's
    /// credentials, which may be written without `http://`.
    static func shownLine(_ line: String) -> String {
        let trimmed = line.drop { $0 == " " }
        guard trimmed.hasPrefix("\(Plan.proxyKey):"), let colon = line.firstIndex(of: ":") else { return URLDisplay.redacting(line) }
        let value = line[line.index(after: colon)...]
        let blank = value.prefix { $0 == " " }
        return String(line[...colon]) + blank + URLDisplay.redactingProxy(String(value.dropFirst(blank.count)))
    }

    /// The plan's name when it gives none: the file name without its extension.
    static func defaultName(for path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        if file.hasSuffix(".plan") { return String(file.dropLast(5)) }
        return file
    }

}

extension Array where Element: Hashable {
    /// The elements in order, without repeats.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
