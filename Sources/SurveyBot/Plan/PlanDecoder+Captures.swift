import SurveyEngine
import SurveyJourney
import SurveyWire

/// Captures: the values a response gives the respondent's session (`${session.NAME}`), in
/// `api.capture` and in a journey step's `capture`.
extension PlanDecoder {
    /// `api.capture:` entries `name: $.path.to.value` or `name: header Name`.
    mutating func readCaptures(_ entry: PlanEntry, into plan: inout Plan) {
        plan.run.api.captures = captures(entry, at: "api.capture")
    }

    /// The `name: $.path` or `name: header Name` entries of a block of captures, such as
    /// `api.capture` or a step's `capture`.
    mutating func captures(_ entry: PlanEntry, at block: String) -> [SurveyAPI.Capture] {
        var captures: [SurveyAPI.Capture] = []
        for capture in entries(entry.value, at: block) {
            let path = "\(block).\(capture.key)"
            guard PlanInterpolation.isVariableName(capture.key) else {
                error("a capture's name is letters, digits and '_' (for ${session.NAME}), found '\(capture.key)'", at: capture.keyLocation)
                continue
            }
            guard let s = scalar(capture.value, keyLocation: capture.keyLocation, path: path, expected: "a JSON path or a header") else {
                continue
            }
            let text = s.text.trimmingCharacters(in: .whitespaces)
            let word = text.prefix { $0 != " " }.lowercased()
            let argument = text.drop { $0 != " " }.trimmingCharacters(in: .whitespaces)
            if ["cookie", "form"].contains(word) {
                guard !argument.isEmpty, word == "form" || HTTPSyntax.isToken(argument) else {
                    error("expected a \(word == "form" ? "form field's" : "cookie's") name after '\(word)' for '\(path)'", at: s.location)
                    continue
                }
                captures.append(SurveyAPI.Capture(name: capture.key, source: word == "form" ? .formField(argument) : .cookie(argument)))
            } else if word == "regex" {
                do throws(TextPattern.Invalid) {
                    captures.append(SurveyAPI.Capture(name: capture.key, source: .regex(try TextPattern(argument))))
                } catch {
                    self.error("\(error.reason) for '\(path)'", at: s.location)
                }
            } else if text.lowercased().hasPrefix("header ") {
                let name = text.dropFirst(7).trimmingCharacters(in: .whitespaces)
                guard HTTPSyntax.isToken(name) else {
                    error("expected a header name after 'header' for '\(path)', found '\(name)'", at: s.location)
                    continue
                }
                captures.append(SurveyAPI.Capture(name: capture.key, source: .header(name)))
            } else if text.hasPrefix("$") {
                do throws(JSONPath.ParseError) {
                    captures.append(SurveyAPI.Capture(name: capture.key, source: .json(try JSONPath(parsing: text))))
                } catch {
                    self.error(
                        "expected a JSON path like $.token, $.data[0].token or $ for '\(path)', found '\(text)': \(error.reason)",
                        at: s.location)
                }
            } else {
                error(
                    "expected a JSON path like $.token, 'header Name', 'cookie Name', 'regex PATTERN' or 'form FIELD' for '\(path)', "
                        + "found '\(s.display)'", at: s.location)
            }
        }
        return captures
    }
}
