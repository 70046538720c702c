import Foundation
import SurveyEngine
import SurveyJourney

/// Where a run's report goes: the report directory, proved writable before the run starts,
/// and the files of every format, written when the run's session stops it.
///
/// Files are named `<name>-<UTC time>.<ext>` plus a stable `<name>-latest.<ext>` copy, with
/// `-shard-i-of-n` after the name for a shard's report, and `-2`, `-3`… after the time when
/// another run of the plan started in the same second. The JSON report, the source of truth
/// that `report`, `diff` and `merge` read, is written whatever other formats are asked for.
final class ReportOutput {
    let writer: ReportWriter
    let formats: [ReportFormat]
    let shard: Shard
    private var pending: (report: RunReport, started: Date)?
    /// The files written, timestamped ones only (`latest` for a format without history).
    private(set) var written: [String] = []
    /// Why the files could not all be written, if so.
    private(set) var failure: ReportWriter.WriteError?

    init(directory: String, formats: [ReportFormat], shard: Shard) {
        writer = ReportWriter(directory: directory)
        self.formats = [.json] + formats.filter { $0 != .json }
        self.shard = shard
    }

    /// Creates the directory and proves it writable with room to spare, and refuses a
    /// directory, FIFO, socket or device where a `latest` file of the report `name` will go —
    /// before any traffic.
    func prepare(name: String) throws(ReportWriter.WriteError) {
        try writer.prepare()
        for format in formats { try writer.check("\(baseName(name))-latest.\(format.fileExtension)") }
    }

    /// The start of every file name of the report `name`: `<name>` or `<name>-shard-i-of-n`.
    func baseName(_ name: String) -> String {
        Self.safeFileName(name) + (shard == .whole ? "" : "-shard-\(shard.index)-of-\(shard.count)")
    }

    /// The report to write when the output stops.
    func finish(_ report: RunReport, started: Date) {
        pending = (report, started)
    }

    /// Writes the report given to `finish`, if any, in every format.
    func stop() {
        guard let (report, started) = pending else { return }
        pending = nil
        let stamp = started.formatted(
            Date.ISO8601FormatStyle(timeSeparator: .omitted).year().month().day().time(includingFractionalSeconds: false)
        )
        .replacingOccurrences(of: "-", with: "")
        let base = baseName(report.name)
        // Every format is rendered before any is written: a report that cannot be encoded
        // leaves no file of any format behind.
        var texts: [(format: ReportFormat, text: String)] = []
        for format in formats {
            do throws(JSONEncodingError) {
                texts.append((format, try format.render(report)))
            } catch {
                let file = "\(writer.directory)/\(base)-\(stamp)Z.\(format.fileExtension)"
                failure = ReportWriter.WriteError(description: "cannot write \(file): \(error.description)")
                return
            }
        }
        do throws(ReportWriter.WriteError) {
            // Another run of the plan that started in the same second took the name: this one
            // takes the next, `-2`, `-3`…, claimed by its JSON report, never replacing a file.
            var name = "\(base)-\(stamp)Z"
            var number = 1
            while true {
                if let path = try writer.writeNew(texts[0].text, to: "\(name).\(texts[0].format.fileExtension)") {
                    written.append(path)
                    break
                }
                number += 1
                name = "\(base)-\(stamp)Z-\(number)"
            }
            for (index, (format, text)) in texts.enumerated() {
                guard format.keepsHistory else {
                    written.append(try writer.write(text, to: "\(base)-latest.\(format.fileExtension)"))
                    continue
                }
                if index > 0 { written.append(try writer.write(text, to: "\(name).\(format.fileExtension)")) }
                try writer.write(text, to: "\(base)-latest.\(format.fileExtension)")
            }
        } catch {
            failure = error
        }
    }

    /// A plan name made safe for a file name: letters, digits, `-`, `_`, `.`, each run of other
    /// characters one `-` between words, none at the ends. The name is the shown one, so a part
    /// from the environment is its variable's name: `nightly-${BRANCH}` → `nightly-BRANCH`.
    static func safeFileName(_ name: String) -> String {
        var cleaned = ""
        var skipped = false
        for c in name {
            guard c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".") else {
                skipped = true
                continue
            }
            if skipped && !cleaned.isEmpty && cleaned.last != "-" && c != "-" { cleaned.append("-") }
            skipped = false
            cleaned.append(c)
        }
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "run" + cleaned : cleaned
    }
}
