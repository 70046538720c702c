import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A fixed set of event loops, one thread each: by default one per core.
///
/// The group hands out loops round-robin. Shut it down when done; its threads end once their
/// queued work has run.
public final class EventLoopGroup: Sendable {
    /// The loops, in index order.
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// Why a group could not start: the process had no file descriptor (or memory) left for a
    /// loop's epoll instance or wake-up descriptor.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// `cannot start event loop 3: eventfd(): Too many open files (EMFILE)`.
        public var description: String
    }

    /// Starts `threads` loops (at least one), each on a thread of its own until `shutdown()`.
    /// Stops the process if a loop cannot be made; `start(threads:)` throws instead.
    public convenience init(threads: Int = EventLoopGroup.coreCount) {
        do throws(StartError) {
            try self.init(loops: Self.makeLoops(threads))
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// Starts `threads` loops (at least one), each on a thread of its own until `shutdown()`;
    /// throws, starting none, when the process has no descriptor left for one of them.
    public static func start(threads: Int = EventLoopGroup.coreCount) throws(StartError) -> EventLoopGroup {
        EventLoopGroup(loops: try makeLoops(threads))
    }

    private init(loops: [EventLoop]) {
        self.loops = loops
        for loop in loops { loop.start() }
    }

    /// The loops, made but not started; those made before a failure close as they go.
    private static func makeLoops(_ threads: Int) throws(StartError) -> [EventLoop] {
        var loops: [EventLoop] = []
        for index in 0..<max(1, threads) { loops.append(try EventLoop(index: index)) }
        return loops
    }

    /// The number of online cores, at least 1: the default number of loops.
    public static var coreCount: Int {
        return max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The next loop, round-robin.
    func next() -> EventLoop {
        loops[nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// The group's loop whose thread the caller runs on, if any.
    var current: EventLoop? {
        guard let loop = EventLoop.current, loop.index < loops.count, loops[loop.index] === loop else { return nil }
        return loop
    }

    /// Stops every loop and waits for their threads to end, blocking the caller meanwhile.
    /// Must not be called from a loop; a second call returns at once.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        precondition(EventLoop.current == nil, "EventLoopGroup.shutdown() called on one of its own threads")
        for loop in loops { loop.stop() }
        for loop in loops { loop.join() }
    }
}
