#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes report files atomically: a temporary file in the same directory, flushed to disk,
/// then renamed over the destination — a killed run never leaves half a report where the last
/// good one was.
///
/// The temporary file is created exclusively under a name no other process can guess
/// (`TemporaryFiles`), so that a file or link planted there is never opened; a link at the
/// destination is replaced by the report, never followed; a directory, FIFO, socket or device
/// there is refused. The temporary file is removed on every path out, an exit on a second
/// signal included.
struct ReportWriter {
    let directory: String
    /// The unpredictable part of temporary names; tests choose their own.
    var random: () -> String = TemporaryFiles.randomPart

    init(directory: String) {
        self.directory = directory
    }

    /// Why reports cannot be written.
    struct WriteError: Error, CustomStringConvertible {
        var description: String

        init(description: String) {
            self.description = description
        }

        init(_ error: FileError) {
            description = error.description
        }
    }

    /// Free space a run asks of its report directory before it starts: a ten-minute run's JSON
    /// report is about 70 KB, and each format is written twice (timestamped and `latest`).
    static let minimumFreeBytes: UInt64 = 1 << 20

    /// Creates the directory if needed and proves it writable with room for the reports, before
    /// any traffic is sent.
    func prepare() throws(WriteError) {
        if let error = FileAccess.makeDirectories(directory, action: "create the report directory") {
            throw WriteError(error)
        }
        let probe: (fd: Int32, path: String)
        switch TemporaryFiles.create(in: directory, for: "survey-bot-probe", random: random) {
        case .success(let created): probe = created
        case .failure(let error):
            throw WriteError(FileError(action: "write into the report directory", path: directory, reason: error.reason))
        }
        var byte: UInt8 = 0x0A
        let wrote = Glibc.write(probe.fd, &byte, 1)
        let error = errno
        close(probe.fd)
        TemporaryFiles.remove(probe.path)
        guard wrote == 1 else {
            throw WriteError(FileError(action: "write into the report directory", path: directory, reason: FileAccess.reason(error)))
        }
        var volume = statvfs()
        if statvfs(directory, &volume) == 0 {
            let free = UInt64(volume.f_bavail) * UInt64(volume.f_frsize)
            guard free >= Self.minimumFreeBytes else {
                throw WriteError(
                    description: "only \(free / 1024) KiB free for the report directory '\(directory)' (a run needs 1 MiB for its reports)")
            }
        }
    }

    /// Refuses a destination that is a directory, FIFO, socket or device, before anything is
    /// written.
    func check(_ name: String) throws(WriteError) {
        if let error = FileAccess.writeRefusal("\(directory)/\(name)") { throw WriteError(error) }
    }

    /// Writes `text` to `directory/name` atomically; returns the path.
    @discardableResult
    func write(_ text: String, to name: String) throws(WriteError) -> String {
        let path = "\(directory)/\(name)"
        try check(name)
        let temporary = try writeTemporary(text, for: name)
        let renamed = TemporaryFiles.rename(temporary, to: path)
        guard renamed == 0 else {
            TemporaryFiles.remove(temporary)
            throw Self.failure(renamed, path)
        }
        syncDirectory()
        return path
    }

    /// Writes `text` to `directory/name` atomically unless something is there already; returns
    /// the path, or nil — touching nothing — when the name is taken. The file appears whole
    /// under its name (a hard link to the temporary file), so two runs can never take one name.
    func writeNew(_ text: String, to name: String) throws(WriteError) -> String? {
        let path = "\(directory)/\(name)"
        let temporary = try writeTemporary(text, for: name)
        let linked = TemporaryFiles.link(temporary, to: path)
        TemporaryFiles.remove(temporary)
        if linked == EEXIST { return nil }
        guard linked == 0 else { throw Self.failure(linked, path) }
        syncDirectory()
        return path
    }

    private static func failure(_ code: Int32, _ path: String) -> WriteError {
        WriteError(FileError(action: "write", path: path, reason: FileAccess.reason(code)))
    }

    /// `text` in a new temporary file beside `name`, flushed to disk; returns its path.
    private func writeTemporary(_ text: String, for name: String) throws(WriteError) -> String {
        let path = "\(directory)/\(name)"
        func failure(_ code: Int32) -> WriteError { Self.failure(code, path) }
        let temporary: (fd: Int32, path: String)
        switch TemporaryFiles.create(in: directory, for: name, random: random) {
        case .success(let created): temporary = created
        case .failure(let error): throw failure(error.code)
        }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(temporary.fd, $0.baseAddress! + offset, bytes.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(temporary.fd)
                TemporaryFiles.remove(temporary.path)
                throw failure(code)
            }
            offset += count
        }
        let synced = fsync(temporary.fd)
        let syncError = errno
        close(temporary.fd)
        guard synced == 0 else {
            TemporaryFiles.remove(temporary.path)
            throw failure(syncError)
        }
        return temporary.path
    }

    /// Flushes the directory, so that a rename or link reaches the disk.
    private func syncDirectory() {
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}
