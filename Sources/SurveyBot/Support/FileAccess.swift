#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file that could not be read or written, in plain words — `cannot read plans/x.plan:
/// permission denied`, `cannot write reports/x.json: is a directory` — from the system's error
/// number, never a framework's error domain and code.
struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What could not be done: `read`, `write`, `create the report directory`.
    var action: String
    var path: String
    /// Why, in lower-case words: `no such file or directory`, `is a FIFO, not a file`.
    var reason: String

    var description: String { "cannot \(action) \(path): \(reason)" }
}

/// A system call's error number (`errno`).
struct SystemError: Error, Sendable, Equatable {
    var code: Int32
    /// The system's words for it, lower case.
    var reason: String { FileAccess.reason(code) }
}

/// Reading and checking files with the system's calls, so that every failure has the system's
/// reason, and so that what is not a regular file — a FIFO, a socket, a device, a directory — is
/// refused before it is opened: opening a FIFO to read it waits for a writer that may never come.
enum FileAccess {
    /// The system's words for an error number, lower case: `permission denied`.
    static func reason(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// Why a file of `mode` cannot be read or written as a file; nil for a regular file.
    static func refusal(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "is a directory"
        case S_IFIFO: "is a FIFO, not a file"
        case S_IFSOCK: "is a socket, not a file"
        case S_IFCHR, S_IFBLK: "is a device, not a file"
        default: "is not a regular file"
        }
    }

    /// Why the file at `path` cannot be read now, without opening it; nil when it can.
    static func readProblem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return reason(errno) }
        if let refusal = refusal(mode: status.st_mode) { return refusal }
        return access(path, R_OK) == 0 ? nil : reason(errno)
    }

    /// The size in bytes of the regular file at `path`, symbolic links followed; nil when it
    /// cannot be known or is no regular file (`read` says why).
    static func size(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Every byte of the regular file at `path`, symbolic links followed.
    static func read(_ path: String, upTo limit: Int = .max) -> Result<[UInt8], FileError> {
        func failure(_ reason: String) -> Result<[UInt8], FileError> {
            .failure(FileError(action: "read", path: path, reason: reason))
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return failure(reason(errno)) }
        if let refusal = refusal(mode: status.st_mode) { return failure(refusal) }
        // Non-blocking, and checked again once open: the path may have been swapped for a FIFO
        // between the two calls.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return failure(reason(errno)) }
        defer { close(fd) }
        guard fstat(fd, &status) == 0 else { return failure(reason(errno)) }
        if let refusal = refusal(mode: status.st_mode) { return failure(refusal) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(Int(max(status.st_size, 0)), limit) + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return failure(reason(errno))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[..<count])
        }
        return .success(bytes)
    }

    /// Why `path` cannot be replaced by a report file, checked before anything is written: nil
    /// when nothing is there, or a regular file, or a symbolic link (which is replaced, never
    /// followed).
    static func writeRefusal(_ path: String) -> FileError? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            return errno == ENOENT ? nil : FileError(action: "write", path: path, reason: reason(errno))
        }
        if status.st_mode & S_IFMT == S_IFLNK { return nil }
        return refusal(mode: status.st_mode).map { FileError(action: "write", path: path, reason: $0) }
    }

    /// Creates `path` and any missing parents, like `mkdir -p`; a path that exists must be a
    /// directory (or a link to one).
    static func makeDirectories(_ path: String, action: String) -> FileError? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, 0o755) == 0 { continue }
            let code = errno
            var status = stat()
            if code == EEXIST, stat(prefix, &status) == 0 {
                if status.st_mode & S_IFMT == S_IFDIR { continue }
                let what = prefix == path ? "a file of that name is in the way" : "\(prefix) is not a directory"
                return FileError(action: action, path: path, reason: what)
            }
            return FileError(action: action, path: path, reason: reason(code))
        }
        return nil
    }
}
