import SurveyEngine
import SurveyJourney

extension RunReport {
    /// The report's steps in the journey's order: every format lists them so. A report that
    /// does not say (`steps`, absent before journeys were data) has the default journey's order;
    /// a step it does not list comes after the others, by name.
    var stepNames: [String] {
        var names: [String] = []
        for name in steps ?? Journey.defaultSteps.map(\.name) where stepReports[name] != nil && !names.contains(name) {
            names.append(name)
        }
        return names + stepReports.keys.filter { !names.contains($0) }.sorted()
    }

    /// Whether the report keeps failed attempts out of its latency (`failed_histogram` on its
    /// steps), as every report since that field does; one of a version before it counted them
    /// in `latency_ms` and `histogram` (`StepReport.latencyCoversFailures`).
    var keepsFailedLatencyApart: Bool {
        stepReports.isEmpty || stepReports.values.contains { $0.failedHistogram != nil }
    }

    /// The steps of several reports (those of a diff, or the shards of a merge) in one order:
    /// the first report's, and each step only a later one has just before the step that follows
    /// it there (a login that only the new run has comes before its questions), else last.
    static func stepNames(_ reports: [RunReport]) -> [String] {
        var names: [String] = []
        for report in reports {
            let order = report.stepNames
            for (position, name) in order.enumerated() where !names.contains(name) {
                let next = order[(position + 1)...].lazy.compactMap { names.firstIndex(of: $0) }.first
                names.insert(name, at: next ?? names.endIndex)
            }
        }
        return names
    }
}
