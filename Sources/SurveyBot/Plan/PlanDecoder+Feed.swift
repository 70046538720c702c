import SurveyEngine
import SurveyJourney

/// The data feed, `data:`: its CSV file read and checked before anything is sent, and the paths
/// of files a plan names, resolved and named as errors name them.
extension PlanDecoder {
    /// `data: respondents.csv`, read now: a file that is not CSV is an error at its own line and
    /// column, before anything is sent.
    mutating func readData(_ entry: PlanEntry, into plan: inout Plan) {
        guard let s = scalar(entry.value, keyLocation: entry.keyLocation, path: "data", expected: "a path to a CSV file") else {
            return
        }
        guard !s.text.isEmpty else {
            error("'data' needs the path of a CSV file", at: s.location)
            return
        }
        var planPath = ""
        if case .file(let path) = s.location.origin { planPath = path }
        let path = DataFile.resolve(s.text, planPath: planPath)
        let shown = s.isFromEnvironment ? s.source.display : s.text
        // How errors name the file: as read, or by its variables' names when it came from the environment.
        let named = s.isFromEnvironment ? shown : path
        if let size = FileAccess.size(path), size > CSVReader.Limits.maxFileBytes {
            // Refused before a gigabyte is read only to be let go.
            report(CSVReader.tooLarge(path: named))
            return
        }
        let bytes: [UInt8]
        switch FileAccess.read(path, upTo: CSVReader.Limits.maxFileBytes + 1) {
        case .success(let read): bytes = read
        case .failure(let failure):
            // A path from the environment is shown by its variables' names, never as read.
            error("cannot read the data file \(named): \(failure.reason)", at: s.location)
            return
        }
        // Hashed first: the reader writes the rows over the file's bytes.
        let digest = "sha256:" + SHA256.hex(of: bytes)
        switch CSVReader.read(consume bytes, path: named) {
        case .success(let table):
            plan.run.data = RespondentData(columns: table.columns, rows: table.rows)
            plan.dataFile = DataFile(path: path, shownPath: shown, errorPath: named, lines: table.lines, digest: digest)
        case .failure(let diagnostic):
            // At the data file's line and column; its line is never quoted (its values are secrets).
            report(diagnostic)
        }
    }

    /// A path written in the plan file, resolved against the file's directory as `data:` is; a
    /// path given on the command line (`--set`) is the working directory's.
    func resolvedPath(_ written: String, of s: PlanScalar) -> String {
        guard case .file(let planPath) = s.location.origin else { return written }
        return DataFile.resolve(written, planPath: planPath)
    }

    /// How an error names a resolved file: as resolved, so that it says where it looked — but
    /// one from the environment by its variables' names, never as read.
    func named(_ path: String, shown: String, of s: PlanScalar) -> String {
        guard !s.isFromEnvironment else { return shown }
        return path == shown ? path : "\(shown) (looked for \(path))"
    }
}
