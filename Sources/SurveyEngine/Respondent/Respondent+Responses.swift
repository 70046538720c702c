import SurveyJourney
import SurveyMetrics
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
        for (capture, found) in zip(captures, Self.found(step, in: response)) {
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

    /// What each capture of `step` finds in `response`, in order; nil where it finds nothing.
    static func found(_ step: CompiledStep, in response: TransportResponse) -> [String?] {
        let captures = step.captures
        let body = captures.contains { if case .json = $0.source { true } else { false } } ? try? JSONValue.parse(response.body).get() : nil
        let text =
            captures.contains { if case .json = $0.source { false } else { $0.source.inBody } }
            ? String(decoding: response.body, as: UTF8.self) : ""
        return captures.map { capture -> String? in
            switch capture.source {
            case .header(let name):
                return response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
            case .cookie(let name):
                return response.setCookies.lazy.compactMap(SetCookie.init).first { $0.name.elementsEqual(name.utf8) }
                    .map { String(decoding: $0.value, as: UTF8.self) }
            case .regex(let pattern):
                return pattern.capture(in: text)
            case .formField(let name):
                return name == "*" ? HTMLForm.encodedFields(in: text) : HTMLForm.value(of: name, in: text)
            case .json(let path):
                switch body.flatMap(path.first) {
                case .string(let text)?: return text
                case .integer(let number)?: return String(number)
                // As the server wrote it, byte for byte: `12345678901234567890`, `1e2`.
                case .number(_, let text)?: return text
                case .bool(let flag)?: return String(flag)
                default: return nil
                }
            }
        }
    }

    /// Every value a respondent must never show of what a server sent it: the run's secrets
    /// (the plan's values from the environment, its header values), the proxy's credentials,
    /// its session's captured values and its data row, the value of every cookie in its jar or
    /// set by `response`, and what the step's captures find in `response` — a check that fails
    /// on a login's response quotes the token no capture has taken yet. The one redaction rule
    /// for wherever a server's words are quoted (`reason`).
    func secrets(seeing response: TransportResponse, step compiled: CompiledStep, _ context: SurveyContext) -> SecretValues {
        var values = context.secrets + session + row + (affinity?.proxy?.secrets ?? [])
        values += jar.values
        for field in response.setCookies {
            if let cookie = SetCookie(field) { values.append(String(decoding: cookie.value, as: UTF8.self)) }
        }
        if !compiled.captures.isEmpty { values += Self.found(compiled, in: response).compactMap { $0 } }
        return SecretValues(values)
    }

    /// The detail of a failed attempt: the server's reason when it answered (`reason`), else
    /// the failure's own. Out of line, the result borrowed: matching the response out of it in
    /// `settle` copied its few hundred bytes on every attempt, succeeded or not.
    @inline(never)
    func failureDetail(
        _ result: TransportResult, outcome: AttemptOutcome, detail: String?, step compiled: CompiledStep, _ context: SurveyContext
    ) -> String? {
        guard case .success(let response) = result.received else { return detail }
        return reason(response, outcome: outcome, detail: detail, step: compiled, context)
    }

    /// Why a response failed, as the attempt records it, every secret masked: for a status of
    /// 400 or more the server's reason (an excerpt of its body, `ResponseExcerpt`); for
    /// questions the step could not read (`malformed_response`) what was wrong and what the
    /// server sent — but not for a step that captures: a login's response holds credentials
    /// that, uncaptured, no one knows to mask; for a refused check (`rejected`) what it found.
    /// Nil, and nothing made, when no one would read it: the step already has a sample of such
    /// a failure, and no raw log is written.
    @inline(never)
    func reason(
        _ response: TransportResponse, outcome: AttemptOutcome, detail: String?, step compiled: CompiledStep, _ context: SurveyContext
    ) -> String? {
        guard context.attemptLog != nil || context.recorder.wantsSample(of: outcome, step: compiled.step, lane: lane) else {
            return nil
        }
        let secrets = secrets(seeing: response, step: compiled, context)
        func excerpt() -> String? {
            ResponseExcerpt.of(response.body, bodyBytes: response.bodyBytes, secrets: secrets)
        }
        // A detail cut with `…` may end inside a secret.
        let said = detail.map { text in
            text.hasSuffix("…") ? secrets.redacting(String(text.dropLast()), cut: true) + "…" : secrets.redacting(text)
        }
        switch outcome {
        case .status(let status):
            return TransportResponse.keepsFailureBody(status) ? excerpt() : nil
        case .error(.malformedResponse) where compiled.captures.isEmpty:
            guard let excerpt = excerpt() else { return said }
            return said.map { "\($0); the server sent \(excerpt)" } ?? excerpt
        case .error:
            return said
        }
    }
}
