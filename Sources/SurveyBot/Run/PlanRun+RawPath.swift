import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension PlanRun {
    /// Why `--raw` may not write to `raw`: it is the plan being run, its data file, or a file
    /// of the run's own report (a `latest` file, or a timestamped one of its name and a format
    /// it writes, in the report directory); nil when it is none of them. The same file is
    /// recognised under any spelling — relative, through `..`, through a link to its directory
    /// — and, for a file that exists, through a hard link too.
    func rawPathClash(_ raw: String, output: ReportOutput) -> String? {
        guard let rawPath = Self.canonical(raw) else { return nil }
        var inputs: [(path: String, what: String)] = [(path, "the plan being run")]
        if let data = plan.dataFile { inputs.append((data.path, "the plan's data file")) }
        for (input, what) in inputs {
            if Self.canonical(input) == rawPath || Self.sameFile(input, raw) { return "is \(what)" }
        }
        if let directory = Self.canonical(output.writer.directory), (rawPath as NSString).deletingLastPathComponent == directory {
            let name = (rawPath as NSString).lastPathComponent
            let base = output.baseName(plan.name)
            for format in output.formats where name.hasPrefix(base + "-") && name.hasSuffix("." + format.fileExtension) {
                return "is where this run writes its \(format.rawValue) report"
            }
        }
        return nil
    }

    /// `path` made absolute, its directory's links and `..` resolved; nil when its directory
    /// does not exist (then it is no file of the run's).
    static func canonical(_ path: String) -> String? {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard let resolved = realpath(directory.isEmpty ? "." : directory, nil) else { return nil }
        defer { free(resolved) }
        return (String(cString: resolved) as NSString).appendingPathComponent((path as NSString).lastPathComponent)
    }

    /// Whether two paths name one file that exists (the same device and inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        return stat(a, &first) == 0 && stat(b, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
