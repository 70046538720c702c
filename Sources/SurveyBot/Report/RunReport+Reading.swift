import Foundation
import SurveyEngine
import SurveyJourney

/// Reading a report back: the schema checked first, then every field, then every value a run
/// could not have produced, each refused with the field it is in.
extension RunReport {
    /// Why a file is not a report this version can read.
    struct ReadError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Reads a report file, refusing other schemas with a clear message.
    static func read(path: String) throws(ReadError) -> RunReport {
        let data: Data
        // One byte past the limit tells a file over it from one at it, without reading the rest.
        switch FileAccess.read(path, upTo: maxFileBytes + 1) {
        case .success(let bytes) where bytes.count > maxFileBytes:
            throw ReadError(description: "\(path): larger than \(maxFileBytes >> 20) MiB, which no report is")
        case .success(let bytes): data = Data(bytes)
        case .failure(let error): throw ReadError(description: error.description)
        }
        guard case .success(let value) = JSONValue.parse(data) else { throw ReadError(description: "\(path): not JSON") }
        // Before the whole document is decoded: a timeline of 200,000 points would cost that much.
        if let problem = timelineLengthProblem(value) ?? duplicateKeyProblem(value) {
            throw ReadError(description: "\(path): \(problem)")
        }
        guard case .string(let schema)? = value["schema"] else {
            throw ReadError(description: "\(path): not a survey-bot report (no \"schema\" field)")
        }
        guard schema == schemaVersion else {
            throw ReadError(description: "\(path): report schema '\(schema)' is not '\(schemaVersion)', which this version reads")
        }
        let report: RunReport
        do {
            report = try JSONDecoder().decode(RunReport.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ReadError(description: "\(path): missing field '\(Self.path(context.codingPath + [key]))'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ReadError(description: "\(path): wrong type at '\(Self.path(context.codingPath))'")
        } catch let DecodingError.valueNotFound(_, context) {
            throw ReadError(description: "\(path): null at '\(Self.path(context.codingPath))'")
        } catch {
            throw ReadError(description: "\(path): not a valid report: \(error)")
        }
        if let problem = report.rangeProblem() { throw ReadError(description: "\(path): \(problem)") }
        return report
    }

    /// The largest report file read: a day's run of twenty steps, its timeline full, is a few
    /// MiB; a file of a GiB would cost twice that in memory before it could be refused.
    static let maxFileBytes = 16 << 20

    /// The largest count a report may hold: beyond it, sums could overflow, and no run gets there.
    static let maxCount = 1 << 50

    /// The first field whose value no run could have produced (negative or absurd counts,
    /// non-finite numbers, names no run writes, a timeline off its grid), or nil. The one pass
    /// every report read goes through: what it lets by, every renderer, `diff` and `merge` can take.
    func rangeProblem() -> String? {
        nameProblem() ?? timelineProblem() ?? figureProblem()
    }

    private func figureProblem() -> String? {
        func count(_ value: Int, _ field: String) -> String? {
            (0...Self.maxCount).contains(value) ? nil : "'\(field)' is \(value), out of range"
        }
        func number(_ value: Double, _ field: String) -> String? {
            value.isFinite && value >= 0 && value < 1e15 ? nil : "'\(field)' is \(value), out of range"
        }
        var problems: [String?] = [
            shard?.problem, number(durationS, "duration_s"), number(throughput.attemptsPerS, "throughput.attempts_per_s"),
            count(respondents.started, "respondents.started"), count(respondents.completed, "respondents.completed"),
            count(respondents.finishedWithUnanswered, "respondents.finished_with_unanswered"),
            count(respondents.abandoned, "respondents.abandoned"), count(respondents.dropped, "respondents.dropped"),
            count(respondents.cutShort ?? 0, "respondents.cut_short"),
            count(answers.submitted, "answers.submitted"), count(answers.unanswered, "answers.unanswered"),
            count(answers.skipped, "answers.skipped"), count(answers.declined, "answers.declined"),
        ]
        problems.append(questions?.problem(maxCount: Self.maxCount))
        if let localResource {
            problems.append(count(localResource.attempts, "local_resource.attempts"))
            problems.append(count(localResource.builtinServerAcceptFailures ?? 0, "local_resource.builtin_server_accept_failures"))
        }
        if let lag {
            problems.append(number(lag.limitMs, "lag.limit_ms"))
            for case (let summary?, let field) in [(lag.arrivalsMs, "lag.arrivals_ms"), (lag.timersMs, "lag.timers_ms")] {
                problems += summary.values.map { number($0, field) }
            }
        }
        problems += respondents.abandonedReasons.map { count($0.value, "respondents.abandoned_reasons.\($0.key)") }
        for answers in (answers.given ?? [:]).values { problems += answers.values.map { count($0, "answers.given") } }
        problems += (answers.givenBeyondLimit ?? [:]).values.map { count($0, "answers.given_beyond_limit") }
        if throughput.timeline.count != throughput.failuresTimeline.count {
            problems.append("'throughput.timeline' and 'throughput.failures_timeline' differ in length")
        }
        problems += throughput.timeline.map { count($0, "throughput.timeline") }
        problems += throughput.failuresTimeline.map { count($0, "throughput.failures_timeline") }
        for (name, step) in stepReports.sorted(by: { $0.key < $1.key }) {
            let prefix = "endpoints.\(name)"
            problems += [
                count(step.calls, "\(prefix).calls"), count(step.attempts, "\(prefix).attempts"),
                count(step.localResource ?? 0, "\(prefix).local_resource"),
                count(step.succeeded, "\(prefix).succeeded"), count(step.failed, "\(prefix).failed"),
                count(step.firstTrySucceeded, "\(prefix).first_try_succeeded"),
                count(step.retriesDenied, "\(prefix).retries_denied"), count(step.retriesUnsafe ?? 0, "\(prefix).retries_unsafe"),
                count(step.failedAttempts, "\(prefix).failed_attempts"),
            ]
            problems += step.status.map { count($0.value, "\(prefix).status.\($0.key)") }
            problems += step.errors.map { count($0.value, "\(prefix).errors.\($0.key)") }
            problems += (step.failedStatus ?? [:]).map { count($0.value, "\(prefix).failed_status.\($0.key)") }
            for case (let summary?, let field) in [
                (step.correctedLatencyMs, "latency_ms"), (step.serviceTimeMs, "service_latency_ms"),
                (step.failedLatencyMs, "failed_latency_ms"),
            ] {
                problems += summary.values.map { number($0, "\(prefix).\(field)") }
            }
            var histograms = [(step.correctedHistogram, "histogram"), (step.serviceTimeHistogram, "service_histogram")]
            if let failed = step.failedHistogram { histograms.append((failed, "failed_histogram")) }
            if let connections = step.connections {
                problems += [
                    count(connections.new, "\(prefix).connections.new"), count(connections.reused, "\(prefix).connections.reused"),
                    count(connections.tlsResumed ?? 0, "\(prefix).connections.tls_resumed"),
                    count(connections.reconnects ?? 0, "\(prefix).connections.reconnects"),
                ]
                problems += (connections.tls ?? [:]).map { count($0.value, "\(prefix).connections.tls.\($0.key)") }
                for (name, use) in connections.protocols ?? [:] {
                    problems += [
                        count(use.attempts, "\(prefix).connections.protocols.\(name).attempts"),
                        count(use.connections, "\(prefix).connections.protocols.\(name).connections"),
                    ]
                }
                if let record = connections.connectHistogram { histograms.append((record, "connections.connect_histogram")) }
                if let record = connections.tlsHandshakeHistogram { histograms.append((record, "connections.tls_handshake_histogram")) }
            }
            for (histogram, field) in histograms where !Self.isValid(histogram) {
                problems.append("'\(prefix).\(field)' is not a valid histogram")
            }
        }
        var lagHistograms: [(RunReport.HistogramRecord, String)] = []
        if let record = lag?.arrivalsHistogram { lagHistograms.append((record, "lag.arrivals_histogram")) }
        if let record = lag?.timersHistogram { lagHistograms.append((record, "lag.timers_histogram")) }
        for (histogram, field) in lagHistograms where !Self.isValid(histogram) {
            problems.append("'\(field)' is not a valid histogram")
        }
        for result in thresholds {
            let name = result.threshold.name
            problems.append(number(abs(result.threshold.limit), "thresholds.\(name).limit"))
            if let actual = result.actual { problems.append(number(abs(actual), "thresholds.\(name).actual")) }
        }
        return problems.compactMap { $0 }.first
    }

    /// Whether a histogram record is one a run could write: its buckets add up to its count,
    /// and its counts and sum are in range (a sum beyond count × max is no histogram's:
    /// merged, it could overflow to infinity).
    private static func isValid(_ histogram: RunReport.HistogramRecord) -> Bool {
        let sumHolds = histogram.sum >= 0 && histogram.sum <= Double(histogram.count) * Double(histogram.max) * (1 + 1e-9) + 1
        return histogram.histogram != nil && histogram.count <= UInt64(Self.maxCount) && histogram.max <= UInt64(Self.maxCount) && sumHolds
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
