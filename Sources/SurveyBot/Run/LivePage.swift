import SurveyEngine

/// The live page of `--metrics-listen` at `/`: the verdict so far, the progress of the run and
/// the HTML report's charts over time, drawn by the same code (`HTMLReport.charts`).
///
/// The page is the report's frame around one fragment, `/live/fragment`, which a few lines of
/// inline script fetch again every second and put in its place: everything is drawn on the
/// server, nothing is fetched from anywhere else, and the page opens without its script (it
/// then shows the figures of when it was loaded). Everything shown comes from a `RunReport`,
/// whose text fields are the plan's as reports show them (secrets as `${NAME}`, URL user info
/// and query values as `***`), escaped by `XMLText`.
enum LivePage {
    /// What the page shows of a run.
    struct View {
        /// The report of the run so far, or the final one.
        var report: RunReport
        /// The plan's duration, for `12 s of 60 s`; nil when the run ends with its respondents.
        var duration: Duration?
        /// The respondents of a closed model this process starts; nil for an open model.
        var respondents: Int?
        /// Whether the run has ended: `report` is then the one written, verdict and all.
        var final: Bool
    }

    static let contentType = "text/html; charset=utf-8"

    /// The whole page around `fragment`, the script that refreshes it, and its title.
    static func document(name: String, fragment: String) -> String {
        HTMLPage.document(
            title: "survey-bot live: \(name)", body: "<div id=\"live\">\n\(fragment)\n</div>\n<p class=\"note\" id=\"live-note\"></p>",
            style: css, script: script)
    }

    /// The page's content, swapped in whole each second: HTML.
    static func fragment(_ view: View) -> String {
        let report = view.report
        var html: [String] = []
        html.append("<h1>survey-bot: \(XMLText.escape(report.name))</h1>")
        if view.final {
            html.append(
                "<p class=\"verdict \(HTMLReport.verdictClass(report))\" id=\"verdict\" data-final=\"true\">"
                    + "\(XMLText.escape("Run ended: " + ReportWording.verdict(report, marks: .plain)))</p>")
        } else {
            let (text, mood) = verdictSoFar(report)
            html.append("<p class=\"verdict \(mood)\" id=\"verdict\">\(XMLText.escape(text))</p>")
        }
        html.append(
            "<p class=\"meta\">\(XMLText.escape(report.target)) · started \(XMLText.escape(report.startedAt)) · "
                + (view.final ? "ended " : "figures of ") + "\(XMLText.escape(report.endedAt))"
                + (report.shard.map { $0.count > 1 ? " · shard \(XMLText.escape($0.description))" : "" } ?? "") + "</p>")
        if let warning = ReportWording.lagWarning(report) {
            html.append("<p class=\"verdict warn\">Warning: \(XMLText.escape(warning)).</p>")
        }
        if view.final {
            html.append(
                "<p>The report: <a href=\"report.html\">report.html</a> · <a href=\"report.json\">report.json</a> "
                    + "(served until survey-bot exits; the files are the record).</p>")
        }
        html.append(progress(view))
        html.append(view.final ? HTMLReport.thresholds(report) : thresholdsSoFar(report))
        html.append(HTMLReport.charts(TimelineCharts(runs: [.init(report: report, label: nil, dashed: false)])))
        return html.joined(separator: "\n")
    }

    /// What is shown before the first figures are read: the page was asked for, and they are
    /// being rendered.
    static func waiting(name: String) -> String {
        "<h1>survey-bot: \(XMLText.escape(name))</h1>\n<p class=\"verdict running\" id=\"verdict\">Reading the first figures…</p>"
    }

    /// The verdict so far, and its mood as a CSS class: failing as soon as one threshold fails
    /// on the figures so far, holding while every one with samples holds.
    static func verdictSoFar(_ report: RunReport) -> (text: String, mood: String) {
        let judged = report.thresholds.filter { $0.actual != nil }
        let failing = judged.filter { !$0.passed }
        let running = "Running, \(Readable.number(report.durationS)) s: "
        if !failing.isEmpty {
            let aborting = failing.contains { $0.threshold.abort }
            return (
                running
                    + "failing \(failing.count) of \(report.thresholds.count) threshold\(report.thresholds.count == 1 ? "" : "s") so far"
                    + (aborting ? " (an abort threshold: the run ends once it is judged)" : ""), "bad"
            )
        }
        if judged.isEmpty { return (running + "no threshold has samples yet", "running") }
        return (
            running + "\(judged.count) of \(report.thresholds.count) threshold\(report.thresholds.count == 1 ? "" : "s") holding so far",
            "ok"
        )
    }

    /// The run's progress: time, respondents, attempts.
    static func progress(_ view: View) -> String {
        let report = view.report
        let respondents = report.respondents
        let attempts = report.stepReports.values.reduce(0) { $0 + $1.attempts }
        let failed = report.stepReports.values.reduce(0) { $0 + $1.failedAttempts }
        let elapsed = Readable.number((report.durationS * 10).rounded() / 10) + " s"
        let planned = view.duration.map { " of " + Readable.number($0.seconds) + " s" } ?? ""
        let started = String(respondents.started) + (view.respondents.map { " of \($0)" } ?? "")
        let cells: [(id: String, heading: String, value: String)] = [
            ("elapsed", "elapsed", elapsed + planned),
            ("started", "respondents started", started),
            ("completed", "completed", String(respondents.completed)),
            ("abandoned", "abandoned", String(respondents.abandoned)),
            ("cut-short", "cut short", String(respondents.cutShort ?? 0)),
            ("dropped", "arrivals dropped", String(respondents.dropped)),
            ("attempts", "attempts", String(attempts)),
            ("failed", "failed attempts", String(failed)),
            ("rate", "attempts/s", Readable.number(report.throughput.attemptsPerS)),
        ]
        let header = "<tr>" + cells.map { "<th class=\"num\">\(XMLText.escape($0.heading))</th>" }.joined() + "</tr>"
        let row = "<tr>" + cells.map { "<td class=\"num\" id=\"\($0.id)\">\(XMLText.escape($0.value))</td>" }.joined() + "</tr>"
        return "<h2>Progress</h2><table><thead>\(header)</thead><tbody>\(row)</tbody></table>"
    }

    /// The thresholds judged on the figures so far: each one's value and state, abort ones
    /// marked with when they are judged.
    static func thresholdsSoFar(_ report: RunReport) -> String {
        guard !report.thresholds.isEmpty else { return "<p class=\"note\">No thresholds in the plan.</p>" }
        let elapsed = report.durationS
        let rows = report.thresholds.map { result -> (cells: [String], state: String) in
            let threshold = result.threshold
            var name = "<code>\(XMLText.escape(threshold.description))</code>"
            if threshold.implicit { name += " (implicit)" }
            if threshold.abort {
                name +=
                    threshold.abortAfter > .zero ? " (abort after \(XMLText.escape(threshold.abortAfter.compactDescription)))" : " (abort)"
            }
            let state: (text: String, css: String)
            if result.actual == nil {
                state = ("… no samples yet", "waiting")
            } else if result.passed {
                state = ("✓ holding", "passed")
            } else if threshold.abort && elapsed < threshold.abortAfter.seconds {
                state = ("✗ failing (judged from \(threshold.abortAfter.compactDescription))", "failed")
            } else {
                state = ("✗ failing", "failed")
            }
            return ([name, XMLText.escape(Readable.actual(result)), XMLText.escape(state.text)], state.css)
        }
        return "<h2>Thresholds so far</h2>"
            + HTMLPage.table(["threshold", "so far", "state"], rows.map(\.cells), numeric: [1], rowClasses: rows.map(\.state))
    }

    /// The page's own styles, after the report's.
    static let css = """
        .verdict.running { background: color-mix(in srgb, var(--muted) 15%, transparent); color: var(--muted); }
        tr.waiting td { color: var(--muted); }
        #live-note:empty { display: none; }
        """

    /// Fetches the fragment every second and puts it in place, until it is the final one. When
    /// the listener does not answer (survey-bot exited, or its 8 connections are taken) it says
    /// so, keeps the figures it has, and tries again every 5 s. Only this page's own address is
    /// fetched. `data-refreshed` counts the fragments put in place (`.ci/check-live`
    /// reads it).
    static let script = """
        (function () {
          var live = document.getElementById("live");
          var note = document.getElementById("live-note");
          var refreshed = 0;
          function ended() { return live.querySelector("[data-final]") !== null; }
          function poll() {
            fetch("live/fragment", { cache: "no-store" }).then(function (response) {
              if (!response.ok) { throw new Error("HTTP " + response.status); }
              return response.text();
            }).then(function (html) {
              live.innerHTML = html;
              refreshed += 1;
              live.setAttribute("data-refreshed", String(refreshed));
              note.textContent = "";
              if (!ended()) { setTimeout(poll, 1000); }
            }).catch(function () {
              note.textContent = "survey-bot does not answer: the run has ended and the process exited (its report files "
                + "are the record), or the listener has its 8 connections. Trying again every 5 s.";
              setTimeout(poll, 5000);
            });
          }
          if (!ended()) { setTimeout(poll, 1000); }
        })();
        """
}
