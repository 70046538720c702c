/// Runs `body`, then `tearDown` — whether `body` returned or threw, so that a failing test leaves
/// no loop thread, socket or process behind — and then rethrows what `body` threw, if anything.
func tearingDown(after body: () async throws -> Void, _ tearDown: () async -> Void) async throws {
    let result: Result<Void, any Error>
    do {
        try await body()
        result = .success(())
    } catch {
        result = .failure(error)
    }
    await tearDown()
    try result.get()
}
