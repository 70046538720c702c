@testable import SurveyEngine
@testable import SurveyTestSupport

/// Runs `body`, then shuts `client`, `server` and `group` down in that order — whether `body`
/// returned or threw, so that a failing test leaves no loop thread or socket behind.
func tearingDown(_ client: HTTPClient, _ server: HTTPServer, _ group: EventLoopGroup, after body: () async throws -> Void) async throws {
    try await tearingDown(after: body) {
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
    }
}
