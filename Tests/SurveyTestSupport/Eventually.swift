/// Checks `condition` every 10 ms until it holds or `seconds` have passed; true when it held.
///
/// For waiting on another process, thread or task instead of sleeping a fixed time: on a quiet
/// machine it returns as soon as the condition holds, and on a busy one it keeps waiting. The
/// deadline only bounds a test that would otherwise hang; it never decides an outcome. Its
/// default is long because the waiting task and what it waits for may share the cooperative
/// pool, two threads on two cores, with hundreds of other tests: in CI a task has waited more
/// than 20 s for a thread.
func eventually(within seconds: Double = 120, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
}
