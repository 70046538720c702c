/// `${NAME}` and `${NAME:-default}` in plan values, replaced from the environment. Each part
/// taken from the environment is kept as such (`PlanText`), so that whatever prints the value
/// shows `${NAME}` instead.
struct PlanInterpolation {
    let environment: [String: String]

    /// Replaces every variable in a bare piece of text. Nil after an error, which is added to
    /// `diagnostics`.
    func substitute(_ slice: ArraySlice<Unicode.Scalar>, in cursor: LineCursor, diagnostics: inout [Diagnostic]) -> PlanText? {
        var text = PlanText()
        var i = slice.startIndex
        while i < slice.endIndex {
            if slice[i] == "$" && i + 1 < slice.endIndex && slice[i + 1] == "{" {
                guard let variable = variable(at: i, in: cursor, diagnostics: &diagnostics) else { return nil }
                guard variable.end <= slice.endIndex else {
                    diagnostics.append(Diagnostic("unterminated '${': missing '}'", at: cursor.location(i)))
                    return nil
                }
                text.append(variable.value)
                i = variable.end
            } else {
                text.append(slice[i])
                i += 1
            }
        }
        return text
    }

    /// Reads `${NAME}` or `${NAME:-default}` starting at `start` (the `$`): its value, and the
    /// index just past the closing brace. Nil after an error, which is added to `diagnostics`.
    func variable(at start: Int, in cursor: LineCursor, diagnostics: inout [Diagnostic]) -> (value: PlanText, end: Int)? {
        let scalars = cursor.scalars
        var i = start + 2
        var name = String.UnicodeScalarView()
        while i < scalars.count, scalars[i] != "}" && scalars[i] != ":" {
            name.append(scalars[i])
            i += 1
        }
        var defaultValue: String?
        if i < scalars.count && scalars[i] == ":" {
            guard i + 1 < scalars.count, scalars[i + 1] == "-" else {
                diagnostics.append(Diagnostic("expected ':-' after the variable name (as in ${NAME:-default})", at: cursor.location(i)))
                return nil
            }
            i += 2
            var value = String.UnicodeScalarView()
            while i < scalars.count, scalars[i] != "}" {
                value.append(scalars[i])
                i += 1
            }
            defaultValue = String(value)
        }
        guard i < scalars.count else {
            diagnostics.append(Diagnostic("unterminated '${': missing '}'", at: cursor.location(start)))
            return nil
        }
        let variable = String(name)
        if defaultValue == nil, Self.isRunTimeVariable(variable) {
            // `${row.colour}` and its kin are filled in per respondent (`TextTemplate`): kept as written.
            return (PlanText("${\(variable)}"), i + 1)
        }
        guard Self.isVariableName(variable) else {
            diagnostics.append(Diagnostic(Self.notAVariable(variable), at: cursor.location(start + 2)))
            return nil
        }
        if let value = environment[variable] {
            var text = PlanText()
            text.append(variable: variable, value: value)
            return (text, i + 1)
        }
        if let defaultValue {
            return (PlanText(defaultValue), i + 1)
        }
        diagnostics.append(
            Diagnostic(
                "environment variable '\(variable)' is not set (give a default with ${\(variable):-default})", at: cursor.location(start)))
        return nil
    }

    /// Whether `${name}` is a variable filled in per respondent at run time, told apart from an
    /// environment variable by its dotted prefix (`row.`, `session.`, `respondent.id`,
    /// `question.id`) or by being `answer`.
    /// The first `${…}` in `text` that names a run-time variable (`row.member`), if any.
    static func firstRunTimeVariable(in text: String) -> String? {
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else { return nil }
            let name = String(rest[open.upperBound..<close])
            if isRunTimeVariable(name) { return name }
            rest = rest[rest.index(after: close)...]
        }
        return nil
    }

    /// Why `${name}` is neither a run-time variable nor an environment variable's name: a
    /// misspelt prefix (`sesion.token`) is suggested its run-time variable.
    static func notAVariable(_ name: String) -> String {
        if let dot = name.firstIndex(of: "."), !name[..<dot].isEmpty {
            let prefix = String(name[..<dot])
            let rest = name[name.index(after: dot)...]
            let known = ["row", "session", "respondent", "question"]
            if let near = Suggestions.closest(to: prefix, in: known) {
                let suggestion = near == "respondent" ? "respondent.id" : near == "question" ? "question.id" : "\(near).\(rest)"
                return "unknown variable '${\(name)}' (did you mean ${\(suggestion)}?): run-time variables are ${row.COLUMN}, "
                    + "${session.NAME}, ${respondent.id}, ${question.id} and ${answer}"
            }
            return "unknown variable '${\(name)}': run-time variables are ${row.COLUMN}, ${session.NAME}, ${respondent.id}, "
                + "${question.id} and ${answer}; an environment variable's name is letters, digits and '_'"
        }
        return "invalid environment variable name '\(name)' (letters, digits and '_', not starting with a digit)"
    }

    static func isRunTimeVariable(_ name: String) -> Bool {
        name == "answer" || name == "answer.label" || name == "answers" || name.hasPrefix("group.") || name == "respondent.id"
            || name.hasPrefix("question.") || name.hasPrefix("row.") || name.hasPrefix("session.")
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
