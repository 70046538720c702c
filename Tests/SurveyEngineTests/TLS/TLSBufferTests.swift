import CTLS
import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// The first connections open at once keep their read and write buffers between exchanges; those
/// made while `CTLS_KEEP_BUFFERS_UP_TO` are open release them whenever they are empty, so that
/// thousands of waiting connections hold no buffers.
///
/// Serialized: each test holds `CTLS_KEEP_BUFFERS_UP_TO` connections or more at once, and the
/// other's would move the count under it.
@Suite(.serialized) struct TLSBufferTests {
    /// How far from the limit the count must be for a connection's mode to be checked: other
    /// suites running at once open and close a few TLS connections of their own meanwhile.
    static let slack = 64
    /// Enough connections that the last of them are made well past the limit.
    static let count = Int(CTLS_KEEP_BUFFERS_UP_TO) + 2 * slack

    @Test func connectionsPastTheLimitReleaseTheirBuffers() throws {
        _ = try TLSLibrary.shared.get()
        let limit = Int(CTLS_KEEP_BUFFERS_UP_TO)
        let context = try #require(ctls_context_new(0))
        defer { ctls_context_free(context) }
        var made: [(connection: OpaquePointer, openBefore: Int)] = []
        defer { for entry in made { ctls_connection_free(entry.connection, 1) } }
        for _ in 0..<Self.count {
            // Never used for I/O: the descriptor is only stored.
            let openBefore = ctls_open_connections()
            made.append((try #require(ctls_connection_new(context, -1)), openBefore))
        }
        for (index, entry) in made.enumerated() {
            let releases = ctls_connection_releases_buffers(entry.connection) != 0
            // Made with `limit` of this test's own open: past the limit whatever others do.
            if index >= limit { #expect(releases, "connection \(index)") }
            if entry.openBefore < limit - Self.slack { #expect(!releases, "connection \(index), \(entry.openBefore) open") }
            if entry.openBefore >= limit + Self.slack { #expect(releases, "connection \(index), \(entry.openBefore) open") }
        }
        let openWithThem = ctls_open_connections()
        for entry in made { ctls_connection_free(entry.connection, 1) }
        let freed = made.count
        made = []
        // Freed connections no longer count (other tests may open and close theirs meanwhile).
        #expect(ctls_open_connections() <= openWithThem - freed + Self.slack)
    }

    @Test(arguments: [false, true]) func exchangesGoThroughWhetherBuffersAreKeptOrReleased(pastTheLimit: Bool) throws {
        _ = try TLSLibrary.shared.get()
        let context = try #require(ctls_context_new(0))
        defer { ctls_context_free(context) }
        var filler: [OpaquePointer] = []
        defer { for connection in filler { ctls_connection_free(connection, 1) } }
        if pastTheLimit {
            for _ in 0..<Int(CTLS_KEEP_BUFFERS_UP_TO) { filler.append(try #require(ctls_connection_new(context, -1))) }
        }
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: try TLSServerContext(identity: identity))
        if pastTheLimit { #expect(pair.client.releasesBuffers && pair.server.releasesBuffers) }
        #expect(pair.handshake() == (.done, .done))
        for round in 0..<3 {
            let request = Array("GET /\(round) HTTP/1.1\r\n\r\n".utf8)
            let response =
                Array("HTTP/1.1 200 OK\r\ncontent-length: \(round)\r\n\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: round)
            #expect(try pair.transfer(request, from: pair.client, to: pair.server).get() == request)
            #expect(try pair.transfer(response, from: pair.server, to: pair.client).get() == response)
        }
    }
}
