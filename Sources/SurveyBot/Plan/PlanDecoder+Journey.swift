import SurveyEngine
import SurveyJourney
import SurveyWire

/// `journey:` read step by step with `JourneyKeys`, and what a step's keys read by their own
/// code: its `expect` and its `form`. The checks across steps are `PlanDecoder+JourneyChecks`.
extension PlanDecoder {
    /// A step's `expect`: one check, or a list of them, each read by `ResponseCheckSyntax` and
    /// wrong at its own place; one `status` line at most.
    mutating func readExpectation(_ entry: PlanEntry, _ path: String) -> ResponseExpectation? {
        guard let lines = scalarList(entry, path, expected: "checks such as '$.error not exists'") else { return nil }
        var expectation = ResponseExpectation()
        var statusLine: SourceLocation?
        for line in lines {
            do throws(ResponseCheckSyntax.Invalid) {
                switch try ResponseCheckSyntax.parse(line.text) {
                case .check(let check): expectation.checks.append(check)
                case .statuses(let statuses):
                    if let first = statusLine {
                        error("'\(path)' has one status line, and line \(first.line) is one", at: line.location)
                    }
                    statusLine = line.location
                    expectation.statuses = statuses
                }
            } catch {
                self.error("\(error.reason) in '\(path)'", at: line.location)
            }
        }
        return expectation
    }

    /// A step's `form:` block: the body's template and the captured form whose fields go first
    /// (`"*": ${session.NAME}`), or nil after an error. Each value may hold variables, checked
    /// like a request's.
    mutating func readForm(_ entry: PlanEntry, _ path: String) -> (body: String, fields: String?)? {
        var fields: [(name: String, value: String)] = []
        var spread: String?
        for field in entries(entry.value, at: path) {
            let fieldPath = "\(path).\(field.key)"
            guard let value = scalar(field.value, keyLocation: field.keyLocation, path: fieldPath, expected: "a field's value") else {
                continue
            }
            noteTemplate(fieldPath, value)
            if field.key == "*" {
                let name = value.text.trimmingCharacters(in: .whitespaces)
                guard name.hasPrefix("${session."), name.hasSuffix("}"),
                    PlanInterpolation.isVariableName(String(name.dropFirst(10).dropLast()))
                else {
                    error(
                        "'\(fieldPath)' takes a form captured whole, '${session.NAME}' with 'capture: NAME: form *', found '\(value.text)'",
                        at: value.location)
                    continue
                }
                spread = String(name.dropFirst(10).dropLast())
                continue
            }
            fields.append((field.key, value.text))
        }
        do throws(TemplateError) {
            return (try JourneyStep.formBody(fields), spread)
        } catch {
            // Said at the field by the template checks.
            return nil
        }
    }

    /// `journey:` — the steps in order, each a block named by the step and read by
    /// `JourneyKeys`. Each step starts from its defaults: run once, no body, nothing read, the
    /// retry policy of a declared step.
    mutating func readJourney(_ entry: PlanEntry, into plan: inout Plan) {
        let steps = entries(entry.value, at: "journey")
        guard !steps.isEmpty else {
            error("'journey' needs at least one step: a block named by the step, with its 'request'", at: entry.keyLocation)
            return
        }
        plan.run.declaredJourney = Journey([])
        let errorsBefore = diagnostics.count
        defer { journeyHasErrors = diagnostics.count > errorsBefore }
        for stepEntry in steps {
            guard JourneyKeys.isStepName(stepEntry.key) else {
                error(
                    "a step's name is a letter, then letters, digits, '_' and '-' (it names the step in reports and thresholds), "
                        + "found '\(stepEntry.key)'", at: stepEntry.keyLocation)
                continue
            }
            guard stepEntry.key != Threshold.Scope.surveyName else {
                error("'survey' names the whole survey in thresholds: give the step another name", at: stepEntry.keyLocation)
                continue
            }
            let step = Step(stepEntry.key)
            let path = JourneyKeys.path(step)
            let index = plan.run.declaredJourney?.steps.count ?? 0
            plan.run.declaredJourney?.steps.append(JourneyStep(step, call: SurveyAPI.Call(method: "GET", path: "/")))
            plan.run.retry[step] = PlanKeys.defaultRetry(nil)
            seen[path] = stepEntry
            let errors = diagnostics.count
            decodeBlock(stepEntry.value, path: path, keys: JourneyKeys.keys(step, at: index), into: &plan)
            // A step that is not a block, or has a misspelt key, has had its error already.
            if seen(step, .idempotent) == nil, var journey = plan.run.declaredJourney, index < journey.steps.count {
                journey.steps[index].idempotent = JourneyStep.isIdempotent(journey.steps[index].call.method)
                plan.run.declaredJourney = journey
            }
            if seen(step, .request) == nil, diagnostics.count == errors {
                error(
                    "step '\(step.name)' needs a 'request': its method and path, such as 'request: POST /session'",
                    at: stepEntry.keyLocation)
            }
        }
    }
}
