import CEpoll
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Something with a file descriptor registered on an event loop: told what epoll saw.
///
/// Handlers are called on their loop's thread only, so they keep their state without locks.
protocol EventHandler: AnyObject {
    /// epoll reported `events` (`EPOLLIN`, `EPOLLOUT`, `EPOLLERR`, …) for the handler's socket.
    func handleEvents(_ events: UInt32)
}

/// One thread that owns an epoll instance and runs everything registered on it: socket
/// handlers, timers, closures, and Swift tasks that prefer it as their executor.
///
/// A task whose executor preference is this loop runs on the loop's thread, so when the loop
/// reads a response and resumes the continuation waiting for it, the task goes on right there,
/// without a hop to another thread (swift-nio's event loops work the same way).
public final class EventLoop: TaskExecutor, @unchecked Sendable {
    /// The loop's position in its group: indexes per-loop state such as connection pools.
    let index: Int

    private let epollFD: Int32
    private let wakeFD: Int32
    private let sleeping = Atomic<Bool>(false)
    private let inbox = Mutex<[Work]>([])
    private let stopRequested = Atomic<Bool>(false)
    private var thread: pthread_t?

    // Loop-thread state: touched only on the loop's own thread, and never by two accesses at
    // once there, so its exclusivity goes unchecked at run time (`@exclusivity(unchecked)`: the
    // checks of a class's stored properties cost every attempt some 1,600 instructions).
    @exclusivity(unchecked) private var ready: [Work] = []
    @exclusivity(unchecked) private var running: [Work] = []
    /// What writes once the ready work has run, before the loop waits (`flushBeforeWaiting`).
    @exclusivity(unchecked) private var flushes: [any LoopFlush] = []
    @exclusivity(unchecked) private var flushing: [any LoopFlush] = []
    @exclusivity(unchecked) private var timers = TimerHeap()
    @exclusivity(unchecked) private var handlers: [EventHandler?] = []
    @exclusivity(unchecked) private var generations: [UInt32] = []
    @exclusivity(unchecked) private var freeSlots: [Int] = []

    /// A buffer for socket reads, shared by everything on this loop (one read at a time).
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The monotonic clock's reading when the loop last woke with events: when what they say
    /// had arrived, for everything handling them (an HTTP/1.1 response's end) — one reading a
    /// wake-up rather than one each. Written on the loop's thread only, before the events run.
    let wokeAt: UnsafeMutablePointer<UInt64>

    private enum Work: Sendable {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    /// A loop with its epoll instance and wake-up descriptor; throws, naming the call and the
    /// errno, when the process has no descriptor (or memory) left for them.
    init(index: Int) throws(EventLoopGroup.StartError) {
        func failure(_ call: String, _ error: Int32) -> EventLoopGroup.StartError {
            EventLoopGroup.StartError(description: "cannot start event loop \(index + 1): \(Sockets.describe(error, call: call))")
        }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw failure("epoll_create1()", errno) }
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let error = errno
            close(epoll)
            throw failure("eventfd()", error)
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64.max
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0 else {
            let error = errno
            close(wake)
            close(epoll)
            throw failure("epoll_ctl()", error)
        }
        self.index = index
        epollFD = epoll
        wakeFD = wake
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        wokeAt = .allocate(capacity: 1)
        wokeAt.initialize(to: 0)
    }

    deinit {
        close(epollFD)
        close(wakeFD)
        readBuffer.deallocate()
        wokeAt.deallocate()
    }

    // MARK: Running work

    /// Whether the caller runs on this loop's thread.
    private var inEventLoop: Bool {
        guard let thread else { return false }
        return pthread_equal(pthread_self(), thread) != 0
    }

    /// The loop whose thread the caller runs on, if any.
    static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `job` on the loop's thread after the work already queued: how a task that prefers
    /// this loop gets there. Callable from any thread; a job enqueued after the group has shut
    /// down never runs.
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `body` on the loop's thread, soon (after the work already queued).
    func execute(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body))
    }

    private func submit(_ work: Work) {
        if inEventLoop {
            ready.append(work)
            return
        }
        inbox.withLock { $0.append(work) }
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Runs `action` on the loop's thread once `due` (monotonic ns) has passed. Loop thread only.
    func schedule(at due: UInt64, _ action: @escaping () -> Void) {
        timers.push(due: due, action: action)
    }

    /// Suspends the calling task for `nanoseconds` on this loop's timers. The task resumes on
    /// its own executor; when that is this loop, no thread is involved but the loop's.
    func sleep(nanoseconds: UInt64) async {
        let due = MonotonicClock.now() &+ nanoseconds
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if inEventLoop {
                timers.push(due: due) { continuation.resume() }
            } else {
                execute { [unowned self] in
                    self.timers.push(due: due) { continuation.resume() }
                }
            }
        }
    }

    // MARK: Sockets

    /// Registers `fd` for `events`; returns the token epoll hands back, or nil when epoll
    /// refuses it (`errno` says why: `ENOMEM`, or `ENOSPC` past `max_user_watches`, are this
    /// process's limits, not the peer's). Loop thread only.
    func register(_ fd: Int32, events: UInt32, handler: EventHandler) -> UInt64? {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            handlers[slot] = handler
        } else {
            slot = handlers.count
            handlers.append(handler)
            generations.append(0)
        }
        let token = UInt64(generations[slot]) << 32 | UInt64(slot)
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        if epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) != 0 {
            let error = errno
            release(token)
            errno = error
            return nil
        }
        return token
    }

    /// Changes the events `fd` is watched for. Loop thread only.
    func modify(_ fd: Int32, token: UInt64, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Gives a registration to another handler, with the events it watches unchanged: a
    /// connection's set-up hands its socket to the connection it set up. Loop thread only.
    func rehandle(_ token: UInt64, to handler: EventHandler) {
        handlers[Int(token & 0xFFFF_FFFF)] = handler
    }

    /// Forgets a registration; call before closing the descriptor. Loop thread only.
    func deregister(_ fd: Int32, token: UInt64) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        release(token)
    }

    private func release(_ token: UInt64) {
        let slot = Int(token & 0xFFFF_FFFF)
        handlers[slot] = nil
        generations[slot] &+= 1
        freeSlots.append(slot)
    }

    // MARK: The loop

    func start() {
        let unmanaged = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
                loop.run()
                return nil
            }, unmanaged.toOpaque())
        precondition(result == 0, "pthread_create failed: \(result)")
        self.thread = thread
    }

    /// Asks the loop to finish: it runs what is queued, then its thread ends.
    func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        execute {}
    }

    func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
    }

    private func run() {
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(self).toOpaque())
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while true {
            takeInbox()
            runReady()
            let now = MonotonicClock.now()
            while let timer = timers.popDue(now: now) {
                timer.action()
            }
            // A write may fail and resume a respondent: run until neither has anything left.
            repeat {
                runReady()
                runFlushes()
            } while !ready.isEmpty
            if stopRequested.load(ordering: .sequentiallyConsistent) && inbox.withLock({ $0.isEmpty }) {
                break
            }
            let count = wait(events, capacity: Int32(capacity))
            if count > 0 { wokeAt.pointee = MonotonicClock.now() }
            for i in 0..<Int(count) {
                let event = events[i]
                let token = event.data.u64
                if token == UInt64.max {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                let slot = Int(token & 0xFFFF_FFFF)
                guard slot < handlers.count, generations[slot] == UInt32(token >> 32), let handler = handlers[slot] else {
                    continue
                }
                handler.handleEvents(event.events)
            }
        }
        pthread_setspecific(currentLoopKey, nil)
    }

    private func takeInbox() {
        inbox.withLock { work in
            if !work.isEmpty {
                ready.append(contentsOf: work)
                work.removeAll(keepingCapacity: true)
            }
        }
    }

    private func runReady() {
        while !ready.isEmpty {
            swap(&ready, &running)
            for work in running {
                switch work {
                case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                case .closure(let body): body()
                }
            }
            running.removeAll(keepingCapacity: true)
        }
    }

    /// Has `item` write once the work ready now has run, before the loop waits for I/O: an
    /// HTTP/2 connection whose streams took many requests in one turn of the loop sends them in
    /// one write. Loop thread only.
    func flushBeforeWaiting(_ item: any LoopFlush) {
        flushes.append(item)
    }

    private func runFlushes() {
        guard !flushes.isEmpty else { return }
        swap(&flushes, &flushing)
        for item in flushing { item.flushNow() }
        flushing.removeAll(keepingCapacity: true)
    }

    /// Waits for I/O until the next timer is due, or not at all when work is ready.
    private func wait(_ events: UnsafeMutablePointer<epoll_event>, capacity: Int32) -> Int32 {
        var timeout: timespec?
        if let due = timers.earliestDue {
            let now = MonotonicClock.now()
            let delay = due > now ? due - now : 0
            timeout = timespec(tv_sec: Int(delay / 1_000_000_000), tv_nsec: Int(delay % 1_000_000_000))
        }
        if timeout.map({ $0.tv_sec != 0 || $0.tv_nsec != 0 }) ?? true {
            // Going to sleep: announce it, then look at the inbox once more so that work queued
            // between the last look and the announcement is not left waiting.
            sleeping.store(true, ordering: .sequentiallyConsistent)
            if !inbox.withLock({ $0.isEmpty }) || stopRequested.load(ordering: .sequentiallyConsistent) {
                sleeping.store(false, ordering: .sequentiallyConsistent)
                timeout = timespec(tv_sec: 0, tv_nsec: 0)
            }
        }
        var count: Int32
        repeat {
            if var timeout {
                count = epoll_pwait2(epollFD, events, capacity, &timeout, nil)
            } else {
                count = epoll_pwait2(epollFD, events, capacity, nil, nil)
            }
        } while count < 0 && errno == EINTR
        sleeping.store(false, ordering: .sequentiallyConsistent)
        return max(count, 0)
    }
}

/// What writes its bytes once per turn of its loop (`EventLoop.flushBeforeWaiting`).
protocol LoopFlush: AnyObject {
    /// Writes what waits to be written.
    func flushNow()
}

/// The thread-local slot naming the loop a thread runs.
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0)
    return key
}()
