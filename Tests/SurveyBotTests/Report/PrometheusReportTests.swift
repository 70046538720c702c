import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// One sample of an exposition: its name, labels in order, and value.
struct PrometheusSample: Equatable {
    var name: String
    var labels: [(String, String)]
    var value: Double

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.labels.elementsEqual(rhs.labels, by: ==) && lhs.value == rhs.value
    }

    func label(_ name: String) -> String? { labels.first { $0.0 == name }?.1 }
}

/// Reads the Prometheus text format (0.0.4) as strictly as Prometheus's own parser, plus the
/// rules of a good exposition: every family has `# HELP` and `# TYPE` before its samples, its
/// samples together, no series twice, histograms cumulative up to `+Inf == _count`, and a final
/// `# EOF`. Records every breach as a test issue and returns the samples.
@discardableResult
func parsePrometheus(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [PrometheusSample] {
    func fail(_ line: Int, _ why: String) {
        Issue.record("line \(line): \(why)", sourceLocation: sourceLocation)
    }
    func isName(_ name: Substring, colons: Bool) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII,
            first == "_" || (colons && first == ":") || first.properties.isAlphabetic
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || (colons && $0 == ":") || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
    }
    func value(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
    }
    #expect(text.hasSuffix("# EOF\n"), "the exposition ends with # EOF and a newline", sourceLocation: sourceLocation)
    var samples: [PrometheusSample] = []
    var help: Set<String> = []
    var types: [String: String] = [:]
    var finished: Set<String> = []
    var current: String?
    var series: Set<String> = []
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    for (offset, line) in lines.enumerated() {
        let number = offset + 1
        if line == "# EOF" {
            if number != lines.count { fail(number, "# EOF before the end") }
            continue
        }
        if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, isName(parts[2], colons: true) else {
                fail(number, "malformed \(parts[1]): \(line)")
                continue
            }
            let name = String(parts[2])
            if let current, current != name { finished.insert(current) }
            if finished.contains(name) { fail(number, "\(name) is split in two") }
            current = name
            if parts[1] == "HELP" {
                if !help.insert(name).inserted { fail(number, "second HELP for \(name)") }
                if parts[3].contains("\\") && parts[3].contains(/\\[^\\n]/) { fail(number, "bad escape in HELP") }
            } else {
                if types[name] != nil { fail(number, "second TYPE for \(name)") }
                guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                    fail(number, "unknown type \(parts[3])")
                    continue
                }
                types[name] = String(parts[3])
            }
            continue
        }
        if line.hasPrefix("#") { continue }
        // name{label="value",...} value
        var rest = line[...]
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard isName(rest[..<nameEnd], colons: true) else {
            fail(number, "bad metric name in \(line)")
            continue
        }
        rest = rest[nameEnd...]
        var labels: [(String, String)] = []
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "="), isName(rest[..<equals], colons: false) else {
                    fail(number, "bad label in \(line)")
                    break
                }
                let label = String(rest[..<equals])
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else {
                    fail(number, "unquoted label value in \(line)")
                    break
                }
                rest = rest.dropFirst()
                var value = ""
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if character == "\"" {
                        closed = true
                        break
                    }
                    if character == "\\" {
                        switch rest.first {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: fail(number, "bad escape in \(line)")
                        }
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                if !closed { fail(number, "unterminated label value in \(line)") }
                if labels.contains(where: { $0.0 == label }) { fail(number, "label \(label) twice") }
                labels.append((label, value))
                if rest.first == "," { rest = rest.dropFirst() }
                if rest.isEmpty { break }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " ", let parsed = value(rest.dropFirst()) else {
            fail(number, "bad value in \(line)")
            continue
        }
        var family = name
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" { family = base }
        }
        if family != current { fail(number, "\(name) is not in the family declared last (\(current ?? "none"))") }
        if types[family] == nil || !help.contains(family) { fail(number, "\(family) has no TYPE or HELP before its samples") }
        let key = name + labels.map { "\($0.0)=\($0.1)" }.sorted().joined(separator: ",")
        if !series.insert(key).inserted { fail(number, "series twice: \(key)") }
        if types[family] == "counter" && !name.hasSuffix("_total") { fail(number, "counter \(name) without _total") }
        samples.append(PrometheusSample(name: name, labels: labels, value: parsed))
    }
    // Histograms: cumulative buckets in increasing `le`, `+Inf` equal to `_count`.
    for (family, type) in types where type == "histogram" {
        var groups: [String: [(Double, Double)]] = [:]
        var counts: [String: Double] = [:]
        for sample in samples {
            let key = sample.labels.filter { $0.0 != "le" }.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
            if sample.name == family + "_bucket" {
                guard let le = sample.label("le").flatMap({ value($0[...]) }) else {
                    Issue.record("\(family) bucket without le", sourceLocation: sourceLocation)
                    continue
                }
                groups[key, default: []].append((le, sample.value))
            } else if sample.name == family + "_count" {
                counts[key] = sample.value
            }
        }
        for (key, buckets) in groups {
            #expect(buckets.map(\.0) == buckets.map(\.0).sorted(), "\(family){\(key)}: le in order", sourceLocation: sourceLocation)
            #expect(buckets.map(\.1) == buckets.map(\.1).sorted(), "\(family){\(key)}: cumulative", sourceLocation: sourceLocation)
            #expect(buckets.last?.0 == .infinity, "\(family){\(key)}: ends at +Inf", sourceLocation: sourceLocation)
            #expect(buckets.last?.1 == counts[key], "\(family){\(key)}: +Inf is _count", sourceLocation: sourceLocation)
        }
    }
    return samples
}

@Suite struct PrometheusReportTests {
    @Test func theExpositionKeepsTheTextFormatsGrammar() throws {
        parsePrometheus(PrometheusReport.render(ReportFixtures.report()))
        parsePrometheus(PrometheusReport.render(ReportFixtures.report(), live: true))
        parsePrometheus(PrometheusReport.render(ReportFixtures.report(metrics: RunMetrics())))
    }

    /// The checker above is what the other tests trust: it must catch what Prometheus refuses.
    @Test func theGrammarCheckerCatchesBrokenExpositions() {
        let broken = [
            "survey_bot_x 1\n# EOF\n",  // no HELP or TYPE
            "# HELP a_total a\n# TYPE a_total counter\na_total{x=\"1} 1\n# EOF\n",  // unterminated label
            "# HELP a_total a\n# TYPE a_total counter\na_total 1\n",  // no # EOF
            "# HELP a a\n# TYPE a counter\na 1\n# EOF\n",  // a counter without _total
            "# HELP a a\n# TYPE a gauge\na 1\na 2\n# EOF\n",  // a series twice
            "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"1\"} 3\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 2\n# EOF\n",
            "# HELP a a\n# TYPE a gauge\na{x=\"a\\q\"} 1\n# EOF\n",  // a bad escape
        ]
        for text in broken {
            withKnownIssue("\(text)") { parsePrometheus(text) }
        }
    }

    @Test func countsMatchTheReport() throws {
        let report = ReportFixtures.report()
        let samples = parsePrometheus(PrometheusReport.render(report))
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { sample in sample.name == name && labels.allSatisfy { sample.label($0.key) == $0.value } }?.value
        }
        let submit = try #require(report.stepReports["submit"])
        let attempts = samples.filter { $0.name == "survey_bot_attempts_total" && $0.label("endpoint") == "submit" }
        #expect(attempts.map(\.value).reduce(0, +) == Double(submit.attempts))
        #expect(value("survey_bot_attempts_total", ["endpoint": "submit", "outcome": "400"]) == Double(submit.status["400"] ?? -1))
        #expect(value("survey_bot_attempts_total", ["endpoint": "submit", "outcome": "timeout"]) == Double(submit.errors["timeout"] ?? -1))
        #expect(value("survey_bot_retries_total", ["endpoint": "submit"]) == Double(submit.retries))
        // The latency of the succeeded attempts; the failed ones' time to fail apart.
        #expect(value("survey_bot_latency_seconds_count", ["endpoint": "submit"]) == Double(submit.attempts - submit.failedAttempts))
        #expect(value("survey_bot_latency_seconds_sum", ["endpoint": "submit"]) == submit.correctedHistogram.sum / 1e9)
        #expect(value("survey_bot_time_to_fail_seconds_count", ["endpoint": "submit"]) == Double(submit.failedAttempts))
        #expect(value("survey_bot_time_to_fail_seconds_sum", ["endpoint": "submit"]) == (submit.failedHistogram?.sum ?? 0) / 1e9)
        #expect(value("survey_bot_respondents_total", ["ending": "completed"]) == Double(report.respondents.completed))
        #expect(value("survey_bot_passed") == (report.passed ? 1 : 0))
        #expect(value("survey_bot_run_info", ["run_id": report.runID ?? "?"]) == 1)
        // Every sample names its plan, so that several plans' files can share a directory.
        #expect(samples.allSatisfy { $0.label("plan") == report.name })
    }

    @Test func histogramBucketsCountEachValueAtItsBucketsMidpoint() {
        var histogram = Histogram()
        for milliseconds in [0.5, 2, 2, 7, 40, 3_000] { histogram.record(UInt64(milliseconds * 1_000_000)) }
        let samples = PrometheusReport.histogramSamples(histogram, endpoint: "submit")
        let buckets = Dictionary(
            uniqueKeysWithValues: samples.compactMap { sample in sample.labels.first { $0.0 == "le" }.map { ($0.1, sample.value) } })
        #expect(buckets["0.001"] == "1")
        #expect(buckets["0.0025"] == "3")
        #expect(buckets["0.005"] == "3")
        #expect(buckets["0.01"] == "4")
        #expect(buckets["0.05"] == "5")
        #expect(buckets["2.5"] == "5")
        #expect(buckets["5"] == "6")
        #expect(buckets["+Inf"] == "6")
    }

    @Test func labelValuesAndHelpAreEscaped() throws {
        var report = ReportFixtures.report()
        report.name = "say \"hi\"\\now\nplease"
        let text = PrometheusReport.render(report)
        #expect(text.contains(#"plan="say \"hi\"\\now\nplease""#))
        let samples = parsePrometheus(text)
        #expect(samples.first?.label("plan") == report.name)
        #expect(PrometheusReport.escapeHelp("a\\b\nc") == #"a\\b\nc"#)
    }

    @Test func liveMetricsHaveNoVerdict() {
        let samples = parsePrometheus(PrometheusReport.render(ReportFixtures.report(), live: true))
        #expect(!samples.contains { $0.name == "survey_bot_passed" || $0.name == "survey_bot_threshold_passed" })
        #expect(samples.contains { $0.name == "survey_bot_attempts_total" })
    }

    @Test func aShardSaysWhichInEverySample() {
        let report = ReportFixtures.report(shard: Shard(index: 2, count: 3))
        #expect(parsePrometheus(PrometheusReport.render(report)).allSatisfy { $0.label("shard") == "2/3" })
    }

    /// PromQL sums a run's shards by `run_id`: a series without it would be added to another
    /// run's pods that a dashboard's time range also holds.
    @Test func everySampleNamesItsRunOnce() {
        let report = ReportFixtures.report(shard: Shard(index: 2, count: 3))
        let text = PrometheusReport.render(report, live: true)
        let samples = parsePrometheus(text)
        #expect(!samples.isEmpty && samples.allSatisfy { $0.label("run_id") == report.runID })
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.allSatisfy { $0.components(separatedBy: "run_id=").count == 2 }, "run_id once in each sample")
    }

    @Test func rawCountsAreExportedWhenThereAreAny() {
        var report = ReportFixtures.report()
        #expect(!PrometheusReport.render(report).contains("survey_bot_raw"))
        report.raw = RunReport.Raw(lines: 90, dropped: 10)
        let samples = parsePrometheus(PrometheusReport.render(report))
        #expect(samples.first { $0.name == "survey_bot_raw_dropped_total" }?.value == 10)
    }

    @Test func rawLinesAndDropsAreInTheTextAndMarkdownReportsToo() {
        // A disk that could not keep up is worth a line where people read, not only in the JSON.
        var report = ReportFixtures.report()
        #expect(!TextReport.render(report).contains("raw attempts"))
        report.raw = RunReport.Raw(lines: 17, dropped: 983)
        #expect(TextReport.render(report).contains("  raw attempts: 17 lines written, 983 dropped (the disk could not keep up)"))
        #expect(MarkdownReport.render(report).contains("**Raw attempts:** 17 lines written, 983 dropped"))
        report.raw = RunReport.Raw(lines: 1, dropped: 0)
        #expect(TextReport.render(report).contains("  raw attempts: 1 line written\n"))
    }

    @Test func reportCommandRendersPrometheus() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("r.json", ReportFixtures.report().jsonText())
        let result = await runCommand(["report", path, "--format", "prometheus"])
        #expect(result.status == .success, "\(result.err)")
        #expect(result.out == PrometheusReport.render(ReportFixtures.report()))
    }

    /// node_exporter's textfile collector reads every `.prom` file of its directory: a run
    /// writes only `<name>-latest.prom`, never a timestamped copy that would repeat its series.
    @Test func aRunWritesOnlyTheLatestPrometheusFile() throws {
        let directory = try TemporaryDirectory()
        let output = ReportOutput(directory: directory.path, formats: [.prometheus], shard: .whole)
        try output.prepare(name: "smoke")
        output.finish(ReportFixtures.report(), started: Date(timeIntervalSince1970: 1_700_000_000))
        output.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.filter { $0.hasSuffix(".prom") } == ["smoke-latest.prom"])
        #expect(output.written.contains("\(directory.path)/smoke-latest.prom"))
    }
}
