import Foundation

/// Writes report files atomically: a temporary file in the same directory, flushed to disk,
/// then renamed over the destination — a killed run never leaves half a report where the last
/// good one was.
struct ReportWriter {
    let directory: String

    /// Why reports cannot be written.
    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    /// Free space a run asks of its report directory before it starts: a ten-minute run's JSON
    /// report is about 70 KB, and each format is written twice (timestamped and `latest`).
    static let minimumFreeBytes: UInt64 = 1 << 20

    /// Creates the directory if needed and proves it writable with room for the reports, before
    /// any traffic is sent.
    func prepare() throws(WriteError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw WriteError(description: "cannot create the report directory '\(directory)': \(reason(of: error))")
        }
        let probe = "\(directory)/.survey-bot-probe-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw WriteError(description: "cannot write into the report directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        var byte: UInt8 = 0x0A
        let wrote = Glibc.write(fd, &byte, 1)
        let error = errno
        close(fd)
        unlink(probe)
        guard wrote == 1 else {
            throw WriteError(description: "cannot write into the report directory '\(directory)': \(String(cString: strerror(error)))")
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

    /// Writes `text` to `directory/name` atomically; returns the path.
    @discardableResult
    func write(_ text: String, to name: String) throws(WriteError) -> String {
        let path = "\(directory)/\(name)"
        let temporary = "\(directory)/.\(name).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(description: "cannot write '\(path)': \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw WriteError(description: "cannot write '\(path)': \(reason)")
            }
            offset += count
        }
        let synced = fsync(fd)
        let syncError = errno
        close(fd)
        guard synced == 0 else {
            unlink(temporary)
            throw WriteError(description: "cannot write '\(path)': \(String(cString: strerror(syncError)))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(description: "cannot write '\(path)': \(reason)")
        }
        return path
    }

    private func reason(of error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
