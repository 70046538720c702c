import Testing

@testable import SurveyWire

/// The connection machine both roles share, driven by frames written by hand: the initial
/// window's changes applied to open streams both ways (§6.9.2), WINDOW_UPDATE's stream and
/// connection errors, the stream-id rules of each role, the connection's receiving window.
@Suite struct HTTP2ConnectionMachineTests {
    /// The least a stream is: its windows and its waiting body.
    struct Stream: HTTP2StreamState {
        var sendWindow: FlowWindow
        var receiveWindow: FlowWindow
        var outbound = HTTP2Outbound()
        var receiving = true
    }

    typealias Machine = HTTP2ConnectionMachine<Stream>

    /// What the frames asked of the role, in a form tests compare.
    enum Asked: Equatable {
        case headers(stream: UInt32, endStream: Bool, opens: Bool)
        case data(stream: UInt32, count: Int, endStream: Bool)
        case reset(stream: UInt32, error: HTTP2Error)
        case streamError(stream: UInt32, error: HTTP2Error)
        case goAway(lastStream: UInt32, error: HTTP2Error)
    }

    static func machine(_ role: HTTP2Role, local: HTTP2Settings = HTTP2Settings(), returnsWindows: Bool = true) -> Machine {
        var machine = Machine(
            role: role, local: local, decoder: HPACKDecoder(), returnsWindows: returnsWindows, maxHeaderBlockBytes: 16_384,
            maxControlFrames: 100)
        var output: [UInt8] = []
        machine.start(announcing: [.initialWindowSize], connectionWindow: 65_535, into: &output)
        return machine
    }

    /// Feeds `frames` (after the preface, for a server) and returns what they asked of the role.
    static func feed(_ machine: inout Machine, _ frames: HTTP2Frame..., output: inout [UInt8]) throws(HTTP2Failure) -> [Asked] {
        var bytes: [UInt8] = []
        for frame in frames { frame.write(into: &bytes) }
        machine.take(bytes)
        var asked: [Asked] = []
        while let inbound = try machine.next(into: &output) {
            switch inbound {
            case .headers(let stream, _, let endStream, let opens):
                asked.append(.headers(stream: stream, endStream: endStream, opens: opens))
            case .data(let stream, let data, let endStream): asked.append(.data(stream: stream, count: data.count, endStream: endStream))
            case .reset(let stream, let error): asked.append(.reset(stream: stream, error: error))
            case .streamError(let stream, let error): asked.append(.streamError(stream: stream, error: error))
            case .goAway(let lastStream, let error): asked.append(.goAway(lastStream: lastStream, error: error))
            }
        }
        return asked
    }

    /// A client machine that read the server's (empty) SETTINGS and opened streams 1 and 3.
    static func clientWithTwoStreams() throws -> Machine {
        var machine = machine(.client)
        var output: [UInt8] = []
        _ = try feed(&machine, .settings([], ack: false), output: &output)
        for _ in 0..<2 {
            let id = machine.openLocalStream()
            machine.streams[id] = Stream(
                sendWindow: FlowWindow(machine.peer.initialWindowSize), receiveWindow: FlowWindow(machine.receiveInitialWindow))
        }
        return machine
    }

    static func expectFailure(
        _ error: HTTP2Error, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(HTTP2Failure) -> Void
    ) {
        #expect(sourceLocation: sourceLocation, performing: { try body() }, throws: { ($0 as? HTTP2Failure)?.error == error })
    }

    @Test func aChangedInitialWindowMovesEveryOpenStreamsSendWindowEvenBelowZero() throws {
        var machine = try Self.clientWithTwoStreams()
        machine.streams[1]?.sendWindow.spend(1000)
        var output: [UInt8] = []
        #expect(try Self.feed(&machine, .settings([(.initialWindowSize, 1000)], ack: false), output: &output).isEmpty)
        #expect(machine.streams[1]?.sendWindow.size == 0)
        #expect(machine.streams[3]?.sendWindow.size == 1000)
        _ = try Self.feed(&machine, .settings([(.initialWindowSize, 0)], ack: false), output: &output)
        #expect(machine.streams[1]?.sendWindow.size == -1000)
        #expect(machine.streams[3]?.sendWindow.size == 0)
        // A stream opened now starts with the peer's window.
        #expect(machine.peer.initialWindowSize == 0)
    }

    @Test func aChangedInitialWindowThatTakesAStreamPastTheMaximumIsAFlowControlError() throws {
        var machine = try Self.clientWithTwoStreams()
        var output: [UInt8] = []
        #expect(
            try Self.feed(&machine, .windowUpdate(stream: 3, increment: UInt32(0x7FFF_FFFF - 65_535)), output: &output)
                .isEmpty)
        Self.expectFailure(.flowControlError) { () throws(HTTP2Failure) in
            _ = try Self.feed(&machine, .settings([(.initialWindowSize, 65_536)], ack: false), output: &output)
        }
    }

    @Test func theAcknowledgmentMovesTheReceiveWindowOfStreamsOpenedBeforeIt() throws {
        var local = HTTP2Settings()
        local.initialWindowSize = 1 << 20
        var machine = Self.machine(.server, local: local)
        var output: [UInt8] = []
        machine.take(HTTP2Frame.preface)
        var block: [UInt8] = []
        var encoder = HPACKEncoder()
        encoder.encode([HPACK.Field(":method", "POST")], into: &block)
        let asked = try Self.feed(
            &machine, .settings([], ack: false), .headers(stream: 1, fragment: block, endStream: false, endHeaders: true),
            output: &output)
        #expect(asked == [.headers(stream: 1, endStream: false, opens: true)])
        // The client may not have read this end's SETTINGS yet: RFC 9113's window until it says so.
        #expect(machine.receiveInitialWindow == 65_535)
        machine.streams[1] = Stream(sendWindow: FlowWindow(65_535), receiveWindow: FlowWindow(machine.receiveInitialWindow))
        try machine.streams[1]?.receiveWindow.consume(65_535, stream: 1)
        _ = try Self.feed(&machine, .settings([], ack: true), output: &output)
        #expect(machine.localAcknowledged)
        #expect(machine.receiveInitialWindow == 1 << 20)
        #expect(machine.streams[1]?.receiveWindow.size == (1 << 20) - 65_535)
    }

    @Test func aStreamsWindowUpdateOfZeroOrPastTheMaximumResetsThatStreamAlone() throws {
        var machine = try Self.clientWithTwoStreams()
        var output: [UInt8] = []
        let asked = try Self.feed(
            &machine, .windowUpdate(stream: 1, increment: 0), .windowUpdate(stream: 3, increment: 0x7FFF_FFFF), output: &output)
        #expect(asked == [.streamError(stream: 1, error: .protocolError), .streamError(stream: 3, error: .flowControlError)])
        #expect(machine.streams.isEmpty)
        #expect(
            try HTTP2ServerMachineTests.frames(output)
                == [.resetStream(stream: 1, error: .protocolError), .resetStream(stream: 3, error: .flowControlError)])
        Self.expectFailure(.flowControlError) { () throws(HTTP2Failure) in
            _ = try Self.feed(&machine, .windowUpdate(stream: 0, increment: 0x7FFF_FFFF), output: &output)
        }
    }

    @Test func aClientRefusesFramesOnStreamsNobodyOpened() throws {
        var output: [UInt8] = []
        let idle: [HTTP2Frame] = [
            .data(stream: 5, data: [1], endStream: false), .windowUpdate(stream: 7, increment: 1),
            .resetStream(stream: 5, error: .cancel), .headers(stream: 2, fragment: [0x88], endStream: true, endHeaders: true),
            .headers(stream: 5, fragment: [0x88], endStream: true, endHeaders: true),
        ]
        for frame in idle {
            var machine = try Self.clientWithTwoStreams()
            Self.expectFailure(.protocolError) { () throws(HTTP2Failure) in _ = try Self.feed(&machine, frame, output: &output) }
        }
        // Streams it opened and closed are not idle: their late frames are ignored.
        var machine = try Self.clientWithTwoStreams()
        machine.streams[1] = nil
        #expect(
            try Self.feed(&machine, .data(stream: 1, data: [1], endStream: false), .resetStream(stream: 1, error: .cancel), output: &output)
                .isEmpty)
    }

    @Test func aServerLetsTheClientOpenOddStreamsUpwardOnly() throws {
        var machine = Self.machine(.server)
        var output: [UInt8] = []
        machine.take(HTTP2Frame.preface)
        let asked = try Self.feed(
            &machine, .settings([], ack: false), .headers(stream: 3, fragment: [0x82], endStream: true, endHeaders: true),
            .headers(stream: 1, fragment: [0x82], endStream: true, endHeaders: true), output: &output)
        #expect(
            asked == [
                .headers(stream: 3, endStream: true, opens: true),
                .headers(stream: 1, endStream: true, opens: false),
            ])
        #expect(machine.lastPeerStream == 3)
        Self.expectFailure(.protocolError) { () throws(HTTP2Failure) in
            _ = try Self.feed(&machine, .headers(stream: 4, fragment: [0x82], endStream: true, endHeaders: true), output: &output)
        }
    }

    @Test func halfTheConnectionsWindowIsGivenBackAndThePeerMayNotSendBeyondIt() throws {
        var machine = try Self.clientWithTwoStreams()
        var output: [UInt8] = []
        let half = [UInt8](repeating: 0, count: 16_384)
        for _ in 0..<2 { _ = try Self.feed(&machine, .data(stream: 1, data: half, endStream: false), output: &output) }
        #expect(try HTTP2ServerMachineTests.frames(output).last == .windowUpdate(stream: 0, increment: 32_768))
        var flooded = Self.machine(.client, returnsWindows: false)
        _ = try Self.feed(&flooded, .settings([], ack: false), output: &output)
        _ = flooded.openLocalStream()
        flooded.streams[1] = Stream(sendWindow: FlowWindow(65_535), receiveWindow: FlowWindow(1 << 30))
        Self.expectFailure(.flowControlError) { () throws(HTTP2Failure) in
            for _ in 0..<5 {
                _ = try Self.feed(&flooded, .data(stream: 1, data: [UInt8](repeating: 0, count: 16_000), endStream: false), output: &output)
            }
        }
    }
}
