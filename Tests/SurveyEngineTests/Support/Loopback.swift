@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// Runs `body`, then shuts `client`, `server` and `group` down in that order — whether `body`
/// returned or threw, so that a failing test leaves no loop thread or socket behind.
func tearingDown(_ client: HTTPClient, _ server: HTTPServer, _ group: EventLoopGroup, after body: () async throws -> Void) async throws {
    try await tearingDown(after: body) {
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
    }
}

/// A client of `target` with `configuration` on an event loop of its own, run by `body`, then
/// shut down with its loop — whether `body` returned or threw.
func withClient(
    _ target: HTTPTarget, _ configuration: HTTPClientConfiguration, _ body: (HTTPClient) async throws -> Void
) async throws {
    let group = EventLoopGroup(threads: 1)
    let client: HTTPClient
    do {
        client = try HTTPClient(target: target, group: group, configuration: configuration)
    } catch {
        group.shutdown()
        throw error
    }
    try await tearingDown(after: { try await body(client) }) {
        await client.shutdown()
        group.shutdown()
    }
}
