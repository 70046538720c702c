import Foundation

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
