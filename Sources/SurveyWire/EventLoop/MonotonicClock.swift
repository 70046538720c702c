#if canImport(Glibc)
    import Glibc
#endif

/// Nanoseconds on the monotonic clock: the time base of the event loops and of latencies.
enum MonotonicClock {
    /// Now, in nanoseconds since an arbitrary point (boot).
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// The wall clock, in nanoseconds since 1970.
    static func wallNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

extension Duration {
    /// Whole nanoseconds, never negative: the form due times add up in.
    // Inlinable: the walk's targets call it on every attempt and every think.
    @inlinable @inline(__always)
    package var clampedNanoseconds: UInt64 { UInt64(max(0, nanoseconds)) }
}
