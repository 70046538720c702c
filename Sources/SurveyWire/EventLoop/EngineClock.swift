#if canImport(Glibc)
    import Glibc
#endif

/// Time as the engine sees it: a monotonic reading in nanoseconds and a way to wait. Injected,
/// so that engine tests run on virtual time, fast and repeatable.
public struct EngineClock: Sendable {
    /// Monotonic nanoseconds.
    package var now: @Sendable () -> UInt64
    /// Suspends the caller for that many nanoseconds.
    package var sleep: @Sendable (UInt64) async -> Void
    /// Seconds since the Unix epoch, for dates that servers send (a cookie's `Expires`).
    package var unixTime: @Sendable () -> Int64
    /// Wall-clock nanoseconds since 1970: where a run's timeline intervals fall.
    package var wall: @Sendable () -> UInt64

    init(
        now: @escaping @Sendable () -> UInt64, sleep: @escaping @Sendable (UInt64) async -> Void,
        unixTime: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }, wall: @escaping @Sendable () -> UInt64 = { 0 }
    ) {
        self.now = now
        self.sleep = sleep
        self.unixTime = unixTime
        self.wall = wall
    }

    /// The real clock. A task running on an event loop sleeps on the loop's timers (and wakes up
    /// on that loop); any other task uses `Task.sleep`.
    public static let system = EngineClock(
        now: { MonotonicClock.now() },
        sleep: { nanoseconds in
            guard nanoseconds > 0 else { return }
            if let loop = EventLoop.current {
                await loop.sleep(nanoseconds: nanoseconds)
            } else {
                try? await Task.sleep(for: .nanoseconds(Int64(min(nanoseconds, UInt64(Int64.max)))))
            }
        },
        wall: { MonotonicClock.wallNow() })
}
