import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The temporary files of reports being written right now, process-wide, so that a process
/// told to exit at once (a second Ctrl-C while a report is written) removes them before it goes.
///
/// Each temporary file is created, renamed and removed under one lock, and `exitNow` takes that
/// lock, removes every file still listed and exits without letting go of it: no file can be
/// created after the clean-up and survive it, and none is removed after it was renamed into place.
enum TemporaryFiles {
    private static let inFlight = Mutex<Set<String>>([])

    /// How many times a fresh name is tried when one is taken (by a file, a link, anything).
    static let attempts = 16

    /// Creates a new file for writing in `directory`, named `.<name>.<random>.tmp`, exclusively
    /// (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0644 less the umask): never a file or link that was
    /// already there. `random` makes the unpredictable part of the name. Returns the descriptor
    /// and the path.
    static func create(
        in directory: String, for name: String, random: () -> String = randomPart
    ) -> Result<(fd: Int32, path: String), SystemError> {
        var lastError = EEXIST
        for _ in 0..<attempts {
            let path = "\(directory)/.\(name).\(random()).tmp"
            let fd = inFlight.withLock { paths -> Int32 in
                let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if fd >= 0 { paths.insert(path) }
                return fd
            }
            if fd >= 0 { return .success((fd, path)) }
            lastError = errno
            guard lastError == EEXIST else { break }
        }
        return .failure(SystemError(code: lastError))
    }

    /// Renames a temporary file over `destination` (a link there is replaced, not followed) and
    /// forgets it; returns 0 or the error number.
    static func rename(_ path: String, to destination: String) -> Int32 {
        inFlight.withLock { paths in
            guard Glibc.rename(path, destination) == 0 else { return errno }
            paths.remove(path)
            return 0
        }
    }

    /// Links a temporary file under `destination` unless something is there already; returns 0
    /// or the error number (`EEXIST` when the name is taken). The temporary file stays listed
    /// until it is removed.
    static func link(_ path: String, to destination: String) -> Int32 {
        Glibc.link(path, destination) == 0 ? 0 : errno
    }

    /// Removes a temporary file that will not be renamed, and forgets it.
    static func remove(_ path: String) {
        inFlight.withLock { paths in
            unlink(path)
            paths.remove(path)
        }
    }

    /// The temporary files being written now.
    static var paths: Set<String> { inFlight.withLock { $0 } }

    /// Removes every temporary file being written and exits with `status`, at once.
    static func exitNow(_ status: Int32) -> Never {
        inFlight.withLock { paths -> Never in
            for path in paths { unlink(path) }
            exit(status)
        }
    }

    /// 128 random bits in hex: a name no other process can guess ahead.
    static func randomPart() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
