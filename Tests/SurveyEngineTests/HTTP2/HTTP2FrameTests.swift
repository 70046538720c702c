import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// HTTP/2 frames read and written as RFC 9113 lays them out, and every frame that breaks the
/// protocol refused with the connection error it calls for.
@Suite struct HTTP2FrameTests {
    static func bytes(_ frame: HTTP2Frame) -> [UInt8] {
        var output: [UInt8] = []
        frame.write(into: &output)
        return output
    }

    static func read(_ bytes: [UInt8], maxFrameSize: Int = HTTP2Frame.defaultMaxFrameSize) throws(HTTP2Failure) -> HTTP2Frame? {
        guard case .frame(let frame, let length) = try HTTP2Frame.read(bytes[...], maxFrameSize: maxFrameSize) else { return nil }
        #expect(length == bytes.count)
        return frame
    }

    @Test func aSettingsFrameIsLaidOutAsTheRFCSays() throws {
        let frame = HTTP2Frame.settings([(.maxConcurrentStreams, 100), (.initialWindowSize, 65_535)], ack: false)
        #expect(
            Self.bytes(frame) == [0, 0, 12, 0x4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100, 0, 4, 0, 0, 0xFF, 0xFF])
        #expect(try Self.read(Self.bytes(frame)) == frame)
        #expect(Self.bytes(.settings([], ack: true)) == [0, 0, 0, 0x4, 0x1, 0, 0, 0, 0])
        #expect(HTTP2Frame.preface == Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8))
    }

    @Test func everyFrameRoundTrips() throws {
        let frames: [HTTP2Frame] = [
            .data(stream: 1, data: Array("hello".utf8), endStream: true), .data(stream: 3, data: [], endStream: false),
            .headers(stream: 5, fragment: [0x82, 0x86], endStream: false, endHeaders: true), .priority(stream: 7),
            .resetStream(stream: 9, error: .cancel), .settings([(.headerTableSize, 0), (.enablePush, 0)], ack: false),
            .pushPromise(stream: 1, promised: 2), .ping([1, 2, 3, 4, 5, 6, 7, 8], ack: true),
            .goAway(lastStream: 11, error: .enhanceYourCalm, debug: Array("slow down".utf8)),
            .windowUpdate(stream: 0, increment: 1 << 20), .windowUpdate(stream: 1, increment: 0),
            .continuation(stream: 5, fragment: [0x84], endHeaders: true),
        ]
        for frame in frames { #expect(try Self.read(Self.bytes(frame)) == frame, "\(frame)") }
    }

    @Test func paddingAndPriorityAreTakenOff() throws {
        // DATA, padded: pad length 3, "ok", three bytes of padding.
        let data: [UInt8] = [0, 0, 6, 0x0, 0x8 | 0x1, 0, 0, 0, 1, 3, 0x6F, 0x6B, 0, 0, 0]
        #expect(try Self.read(data) == .data(stream: 1, data: Array("ok".utf8), endStream: true))
        // HEADERS, padded and with a priority: pad length 1, 5 bytes of priority, the fragment, padding.
        let headers: [UInt8] = [0, 0, 9, 0x1, 0x8 | 0x20 | 0x4, 0, 0, 0, 3, 1, 0, 0, 0, 0, 16, 0x82, 0x84, 0]
        #expect(try Self.read(headers) == .headers(stream: 3, fragment: [0x82, 0x84], endStream: false, endHeaders: true))
    }

    @Test func aPartFrameWaitsAndAnUnknownOneIsIgnored() throws {
        let ping = Self.bytes(.ping([0, 0, 0, 0, 0, 0, 0, 1], ack: false))
        #expect(try HTTP2Frame.read(ping.dropLast()[...]) == .incomplete)
        #expect(try HTTP2Frame.read(Array(ping.prefix(5))[...]) == .incomplete)
        #expect(try Self.read([0, 0, 2, 0xFA, 0, 0, 0, 0, 1, 9, 9]) == .unknown(type: 0xFA, stream: 1))
        // An unknown setting is skipped.
        #expect(try Self.read([0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 0x99, 0, 0, 0, 1]) == .settings([], ack: false))
    }

    @Test(arguments: [
        ([0, 0x40, 0x01, 0x0, 0, 0, 0, 0, 1] as [UInt8], HTTP2Error.frameSizeError),  // 16,385 bytes
        ([0, 0, 0, 0x4, 0, 0, 0, 0, 1], .protocolError),  // SETTINGS on a stream
        ([0, 0, 6, 0x4, 0x1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1], .frameSizeError),  // an ack with a payload
        ([0, 0, 5, 0x4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0], .frameSizeError),  // not a multiple of 6
        ([0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2], .protocolError),  // ENABLE_PUSH 2
        ([0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 4, 0x80, 0, 0, 0], .flowControlError),  // window above 2^31-1
        ([0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0x3F, 0xFF], .protocolError),  // MAX_FRAME_SIZE 16,383
        ([0, 0, 0, 0x0, 0, 0, 0, 0, 0], .protocolError),  // DATA on stream 0
        ([0, 0, 4, 0x8, 0, 0, 0, 0, 0, 0, 0, 0, 0], .protocolError),  // WINDOW_UPDATE of 0 on the connection
        ([0, 0, 7, 0x6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7], .frameSizeError),  // PING of 7 bytes
        ([0, 0, 8, 0x6, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8], .protocolError),  // PING on a stream
        ([0, 0, 3, 0x3, 0, 0, 0, 0, 1, 0, 0, 8], .frameSizeError),  // RST_STREAM of 3 bytes
        ([0, 0, 2, 0x0, 0x8, 0, 0, 0, 1, 5, 0], .protocolError),  // padding longer than the frame
    ])
    func aFrameThatBreaksTheProtocolIsAConnectionError(_ bytes: [UInt8], _ error: HTTP2Error) {
        #expect(performing: { _ = try Self.read(bytes) }, throws: { ($0 as? HTTP2Failure)?.error == error })
    }

    @Test func aLargerFrameIsReadWhenThisEndAllowsIt() throws {
        let big = HTTP2Frame.data(stream: 1, data: Array(repeating: 7, count: 20_000), endStream: false)
        #expect(throws: HTTP2Failure.self) { try Self.read(Self.bytes(big)) }
        #expect(try Self.read(Self.bytes(big), maxFrameSize: 1 << 20) == big)
    }

    @Test func errorCodesHaveTheirNames() {
        #expect(HTTP2Error.refusedStream.description == "REFUSED_STREAM")
        #expect(HTTP2Error(0x1F).description == "error 0x1f")
        #expect(HTTP2Failure(.compressionError, "x").description == "COMPRESSION_ERROR: x")
    }
}
