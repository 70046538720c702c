import Foundation
import Synchronization

/// Runs `body` on a thread of its own and waits for it without holding a thread of the
/// cooperative pool. That pool has one thread per core — two here — and every async test
/// shares it: seconds of parsing on it would stall the tests running beside it, and their
/// time limits would fail for want of a thread, not for what they test. The thread's stack is
/// 8 MiB, like the main thread's, for inputs that recurse deeply.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// Starts `body` on a thread of its own now, and returns a task that ends when it has: for a
/// scripted server, whose `accept()` must be waiting before its client connects. Started from a
/// task instead, the thread waited for one of the cooperative pool's threads, which other tests
/// may hold for seconds on a busy machine — and the client timed out against a server that had
/// not begun.
public func startOnOwnThread(_ body: @escaping @Sendable () -> Void) -> Task<Void, Never> {
    let end = ThreadEnd()
    let thread = Thread {
        body()
        end.finish()
    }
    thread.start()
    return Task { await end.wait() }
}

/// The end of a thread, awaited by one task.
private final class ThreadEnd: Sendable {
    private let state = Mutex<(finished: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state -> Bool in
                if !state.finished { state.waiter = continuation }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }
}
