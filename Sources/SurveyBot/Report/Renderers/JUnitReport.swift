/// JUnit XML for Jenkins and GitLab: one test suite per run, one test case per threshold, and
/// one case saying whether the run was interrupted, and one whether every attempt was sent (none
/// lost to this process running out of descriptors or ports).
enum JUnitReport: ReportRenderer {
    static func render(_ report: RunReport) -> String {
        var cases: [String] = []
        var failures = 0
        for result in report.thresholds {
            let threshold = result.threshold
            let name = threshold.description + (threshold.implicit ? " (implicit)" : "")
            var text = "    <testcase classname=\"survey-bot.\(XMLText.escape(report.name))\" name=\"\(XMLText.escape(name))\" time=\"0\">"
            if !result.passed {
                failures += 1
                let message =
                    "\(threshold.name): actual \(Readable.actual(result)), limit \(threshold.comparison.rawValue) \(threshold.limitText)"
                text += "\n      <failure message=\"\(XMLText.escape(message))\"/>\n    "
            }
            cases.append(text + "</testcase>")
        }
        var interrupted =
            "    <testcase classname=\"survey-bot.\(XMLText.escape(report.name))\" name=\"no interrupted run\" time=\"\(report.durationS)\">"
        if report.interrupted {
            failures += 1
            interrupted += "\n      <failure message=\"the run was interrupted before its end\"/>\n    "
        }
        cases.append(interrupted + "</testcase>")
        let stopped = report.stoppedBy == RunReport.stoppedByThresholdCause
        if stopped || report.thresholds.contains(where: \.threshold.abort) {
            var abort =
                "    <testcase classname=\"survey-bot.\(XMLText.escape(report.name))\" name=\"run not stopped by a threshold\" time=\"0\">"
            if stopped {
                failures += 1
                let message = "stopped early: \(report.stoppedByThreshold ?? "a threshold") failed while the run went on (abort)"
                abort += "\n      <failure message=\"\(XMLText.escape(message))\"/>\n    "
            }
            cases.append(abort + "</testcase>")
        }
        var local = "    <testcase classname=\"survey-bot.\(XMLText.escape(report.name))\" name=\"every attempt sent\" time=\"0\">"
        if let localResource = report.localResource {
            failures += 1
            local += "\n      <failure message=\"\(XMLText.escape(ReportWording.localResource(localResource)))\"/>\n    "
        }
        cases.append(local + "</testcase>")
        // A partial merge fails a case of its own, so that a CI reading only test cases cannot
        // take it for a pass, and says so on the first line, after the XML declaration.
        var declaration = #"<?xml version="1.0" encoding="UTF-8"?>"#
        if let missing = report.missingShardsText {
            failures += 1
            declaration += "<!-- PARTIAL merge, \(missing) -->"
            cases.append(
                "    <testcase classname=\"survey-bot.\(XMLText.escape(report.name))\" name=\"every shard merged\" time=\"0\">\n"
                    + "      <failure message=\"\(XMLText.escape("\(missing): the figures cover \(report.shardsMergedText)"))\"/>\n    </testcase>"
            )
        }
        // A warning, not a failure: the tool fell behind its own schedule (`lag`).
        let systemErr = ReportWording.lagWarning(report).map { "\n    <system-err>warning: \(XMLText.escape($0))</system-err>" } ?? ""
        return """
            \(declaration)
            <testsuites name="survey-bot" tests="\(cases.count)" failures="\(failures)">
              <testsuite name="\(XMLText.escape(report.name))" tests="\(cases.count)" failures="\(failures)" errors="0" time="\(report.durationS)" timestamp="\(XMLText.escape(report.startedAt))">
            \(cases.joined(separator: "\n"))\(systemErr)
              </testsuite>
            </testsuites>

            """
    }
}
