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
        let secrets = SecretValues(context.secrets + session + row + (affinity?.proxy?.secrets ?? []))
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
