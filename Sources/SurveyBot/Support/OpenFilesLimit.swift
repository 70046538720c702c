#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`, what `ulimit -n` shows): the first limit
/// a run meets, since every respondent in flight holds a connection, and a builtin server the
/// other end of it.
struct OpenFilesLimit: Sendable, Equatable, CustomStringConvertible {
    /// The limit in force (`ulimit -n`, `ulimit -Sn`).
    var soft: UInt64
    /// The most the soft limit may be raised to without privileges (`ulimit -Hn`).
    var hard: UInt64

    /// The limit now; nil if the system does not say.
    static func current() -> OpenFilesLimit? {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return nil }
        return OpenFilesLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one, as Go's runtime does at start (`os/rlimit.go`):
    /// distributions keep the soft limit at 1024 for programs that use `select()`, which
    /// survey-bot does not. Returns the limit in force afterwards (unchanged if the system
    /// refused). Called by the executable's doorway, `SurveyBotCommand.main(arguments:)`, not by
    /// code that tests load.
    @discardableResult
    static func raiseSoftToHard() -> OpenFilesLimit? {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            _ = setrlimit(resourceNumber, &raised)
        }
        return current()
    }

    /// `40 (hard limit 40)`; `unlimited` where a limit is infinite.
    var description: String {
        "\(Self.text(soft)) (hard limit \(Self.text(hard)))"
    }

    private static func text(_ value: UInt64) -> String {
        value == UInt64.max ? "unlimited" : String(value)  // RLIM_INFINITY is all ones
    }

    #if canImport(Glibc)
        private static let resourceNumber = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceNumber = RLIMIT_NOFILE
    #endif
}
