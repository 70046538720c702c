import SurveyJourney
import SurveyWire

/// What a respondent takes from the responses it gets: the questions of the survey, and the
/// values its steps' responses give its session (`${session.…}`).
extension Respondent {
    /// Reads a questions body, keeping its questions; nil when it keeps the contract, else how
    /// it breaks it (`the questions list is empty`), which the attempt keeps as its detail.
    @inline(never)
    mutating func accept(questionsIn body: [UInt8], step: CompiledStep, _ context: SurveyContext) -> String? {
        switch context.questionsCache.questions(in: body, step: step, lane: lane) {
        case .success(let list):
            questions = list
            return nil
        case .failure(let error):
            return error.description
        }
    }

    /// Takes every capture of `step` from its response into `session`; nil when all were
    /// found, else what is wrong (`capture 'token' not found at $.token`), which the attempt
    /// keeps as its detail. A capture missing leaves the session as it was.
    @inline(never)
    mutating func capture(_ step: CompiledStep, from response: TransportResponse, _ context: SurveyContext) -> String? {
        captureMissing = false
        let captures = step.captures
        guard !captures.isEmpty else { return nil }
        var values: [String] = []
        values.reserveCapacity(captures.count)
        let body = captures.contains { if case .json = $0.source { true } else { false } } ? try? JSONValue.parse(response.body).get() : nil
        let text =
            captures.contains { if case .json = $0.source { false } else { $0.source.inBody } }
            ? String(decoding: response.body, as: UTF8.self) : ""
        for capture in captures {
            let found: String?
            switch capture.source {
            case .header(let name):
                found = response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
            case .cookie(let name):
                found = response.setCookies.lazy.compactMap(SetCookie.init).first { $0.name.elementsEqual(name.utf8) }
                    .map { String(decoding: $0.value, as: UTF8.self) }
            case .regex(let pattern):
                found = pattern.capture(in: text)
            case .formField(let name):
                found = name == "*" ? HTMLForm.encodedFields(in: text) : HTMLForm.value(of: name, in: text)
            case .json(let path):
                switch body.flatMap(path.first) {
                case .string(let text)?: found = text
                case .integer(let number)?: found = String(number)
                // As the server wrote it, byte for byte: `12345678901234567890`, `1e2`.
                case .number(_, let text)?: found = text
                case .bool(let flag)?: found = String(flag)
                default: found = nil
                }
            }
            guard let found else {
                captureMissing = true
                return "capture '\(capture.name)' not found at \(capture.source)"
            }
            // A captured value may go into a header: it must not end the header early.
            if found.unicodeScalars.contains(where: { HTTPSyntax.isControl($0) && $0 != "\t" }) {
                captureMissing = true
                return "capture '\(capture.name)' holds a control character"
            }
            values.append(found)
        }
        if session.count < context.captureCount { session = Array(repeating: "", count: context.captureCount) }
        for (slot, value) in zip(step.captureSlots, values) { session[slot] = value }
        return nil
    }
}
