/// The client's side of one HTTP/2 connection (RFC 9113) as a state machine of bytes: what the
/// connection reads goes in, what it must write comes out, and what the streams became is
/// reported as events. No sockets, no clock: the connection that owns it does the I/O, so
/// that it runs on the event loop like HTTP/1.1 and is tested without a network.
///
/// It keeps the preface and the SETTINGS exchange (with their acknowledgments), HPACK in both
/// directions, flow control of both the connection and each stream (sending within the peer's
/// windows, queueing the rest; giving back what it reads), the peer's limit of concurrent
/// streams, PING, RST_STREAM and GOAWAY.
struct HTTP2ClientMachine: Sendable {
    /// This end's SETTINGS.
    struct Settings: Sendable, Equatable {
        var headerTableSize = 4096
        /// Each stream's receive window: a response body this large is read without waiting.
        var initialWindowSize = 1 << 20
        var maxFrameSize = HTTP2Frame.defaultMaxFrameSize
        var maxHeaderListSize = 64 << 10
        /// The connection's receive window, raised from RFC 9113's 65,535 by a WINDOW_UPDATE.
        var connectionWindow = 4 << 20
        /// The largest response body read: a longer one resets its stream (`tooLarge`).
        var maxBodyBytes = 1 << 20
        /// The largest header block read, CONTINUATIONs included, before HPACK decodes it.
        var maxHeaderBlockBytes = 256 << 10
        /// PING and SETTINGS frames taken between two responses before the peer is told to calm
        /// down: each calls for an answer, and a peer that sends them without end would keep the
        /// connection busy answering.
        var maxControlFrames = 10_000
    }

    /// A response, whole.
    struct Response: Sendable, Equatable {
        var status: Int
        var headers: [HPACK.Field]
        /// The body, when the request asked to keep it; else empty.
        var body: [UInt8]
        /// Bytes of body received, kept or not.
        var bodyBytes: Int

        init(status: Int, headers: [HPACK.Field], body: [UInt8], bodyBytes: Int? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyBytes = bodyBytes ?? body.count
        }
    }

    /// What became of a stream, or of the connection.
    enum Event: Sendable, Equatable {
        case response(stream: UInt32, Response)
        /// The peer reset the stream (RST_STREAM): the request may not have been processed
        /// only when the code is REFUSED_STREAM (§8.7).
        case reset(stream: UInt32, error: HTTP2Error)
        /// The peer is going away: streams above `lastStream` were not processed and may go
        /// out again on a new connection (§6.8); those at or below it are still answered.
        case goAway(lastStream: UInt32, error: HTTP2Error, unprocessed: [UInt32])
        /// The response's body went past `Settings.maxBodyBytes`: the stream was cancelled.
        case tooLarge(stream: UInt32)
    }

    struct Stream: Sendable {
        var sendWindow: Int
        var receiveWindow: Int
        /// Body bytes still to send, held by flow control, and whether the request ends with them.
        var pending: [UInt8] = []
        var pendingOffset = 0
        var status: Int?
        var headers: [HPACK.Field] = []
        var body: [UInt8] = []
        var bodyBytes = 0
        /// Whether the body is kept, or only counted.
        var keepBody: Bool
        /// Whether every header field is kept, or only `retry-after` (which retries read).
        var keepHeaders = true
        /// Bytes read since the window was last given back.
        var unacknowledged = 0
    }

    let settings: Settings
    private var encoder = HPACKEncoder()
    var decoder: HPACKDecoder
    var streams: [UInt32: Stream] = [:]
    private var nextStream: UInt32 = 1
    /// The peer's SETTINGS.
    private(set) var peerMaxConcurrentStreams = Int.max
    private var peerInitialWindow = 65_535
    private var peerMaxFrameSize = HTTP2Frame.defaultMaxFrameSize
    private var connectionSendWindow = 65_535
    private var connectionReceiveUnacknowledged = 0
    /// Bytes read that do not yet make a whole frame.
    private var input: [UInt8] = []
    /// The buffer each request's header block is written into, kept between requests.
    private var scratch: [UInt8] = []
    /// A header block being read across CONTINUATION frames: its stream and fragments so far.
    private var continuing: (stream: UInt32, block: [UInt8], endStream: Bool)?
    /// Whether the peer acknowledged this end's SETTINGS.
    private(set) var settingsAcknowledged = false
    /// Whether the peer's SETTINGS have come (its limit of concurrent streams is known).
    private(set) var peerSettingsReceived = false
    /// PING and SETTINGS frames since the last response.
    var controlFrames = 0
    /// Set once the peer sent GOAWAY: no new stream.
    private(set) var goingAway = false

    init(settings: Settings = Settings()) {
        self.settings = settings
        decoder = HPACKDecoder(maxTableSize: settings.headerTableSize, maxListSize: settings.maxHeaderListSize)
    }

    /// Streams open: sent and not yet answered or reset.
    var openStreams: Int { streams.count }

    /// Whether another request may go out now: under the peer's limit, and not going away.
    var canOpenStream: Bool { !goingAway && streams.count < peerMaxConcurrentStreams && nextStream < 0x7FFF_FFFF }

    /// Whether stream ids are left for new requests: a connection that used its 2^30 of them
    /// carries no more and is closed once its last stream ends (§5.1.1).
    var hasStreamIDs: Bool { nextStream < 0x7FFF_FFFF }

    /// The streams this end may have open at once: the peer's limit, or 100 before its SETTINGS
    /// say (the least RFC 9113 §6.5.2 recommends a peer allow).
    var streamLimit: Int { peerSettingsReceived ? peerMaxConcurrentStreams : min(peerMaxConcurrentStreams, 100) }

    /// The connection's first bytes: the preface, this end's SETTINGS, and the connection window raised.
    mutating func start(into output: inout [UInt8]) {
        output.append(contentsOf: HTTP2Frame.preface)
        HTTP2Frame.settings(
            [
                (.headerTableSize, UInt32(settings.headerTableSize)), (.enablePush, 0),
                (.initialWindowSize, UInt32(settings.initialWindowSize)),
                (.maxFrameSize, UInt32(settings.maxFrameSize)), (.maxHeaderListSize, UInt32(settings.maxHeaderListSize)),
            ], ack: false
        ).write(into: &output)
        if settings.connectionWindow > 65_535 {
            HTTP2Frame.windowUpdate(stream: 0, increment: UInt32(settings.connectionWindow - 65_535)).write(into: &output)
        }
    }

    /// Sends a request on a new stream: its HEADERS (and CONTINUATIONs), and as much of its body
    /// as the windows allow; the rest goes as WINDOW_UPDATEs come. The stream's id.
    mutating func send(
        method: String, scheme: String, authority: String, path: String, headers: [HPACK.Field], body: [UInt8],
        into output: inout [UInt8]
    ) -> UInt32 {
        var fields = [
            HPACK.Field(":method", method), HPACK.Field(":scheme", scheme), HPACK.Field(":authority", authority),
            HPACK.Field(":path", path),
        ]
        fields += headers
        return send(fields, body: body, keepBody: true, into: &output)
    }

    /// Sends a request whose header block `encode` writes, field by field, with the
    /// connection's encoder into the block it is given; its body is kept only when `keepBody`.
    /// The block's buffer is the machine's, reused: no allocation per request for it.
    mutating func send(
        encodingHeaders encode: (inout HPACKEncoder, inout [UInt8]) -> Void, body: [UInt8], keepBody: Bool, keepHeaders: Bool = true,
        into output: inout [UInt8]
    ) -> UInt32 {
        let id = nextStream
        nextStream += 2
        var block = scratch
        scratch = []
        block.removeAll(keepingCapacity: true)
        encoder.beginBlock(into: &block)
        encode(&encoder, &block)
        HTTP2Frame.writeHeaderBlock(stream: id, block[...], endStream: body.isEmpty, maxFrameSize: peerMaxFrameSize, into: &output)
        scratch = block
        var stream = Stream(sendWindow: peerInitialWindow, receiveWindow: settings.initialWindowSize, keepBody: keepBody)
        stream.keepHeaders = keepHeaders
        stream.pending = body
        streams[id] = stream
        flush(id, into: &output)
        return id
    }

    /// Sends a request of `fields`, pseudo-header fields first, on a new stream; its body is
    /// kept only when `keepBody`.
    mutating func send(_ fields: [HPACK.Field], body: [UInt8], keepBody: Bool, into output: inout [UInt8]) -> UInt32 {
        let id = nextStream
        nextStream += 2
        var block: [UInt8] = []
        encoder.encode(fields, into: &block)
        let endStream = body.isEmpty
        var offset = 0
        repeat {
            let end = min(block.count, offset + peerMaxFrameSize)
            let fragment = Array(block[offset..<end])
            let last = end == block.count
            if offset == 0 {
                HTTP2Frame.headers(stream: id, fragment: fragment, endStream: endStream, endHeaders: last).write(into: &output)
            } else {
                HTTP2Frame.continuation(stream: id, fragment: fragment, endHeaders: last).write(into: &output)
            }
            offset = end
        } while offset < block.count
        var stream = Stream(sendWindow: peerInitialWindow, receiveWindow: settings.initialWindowSize, keepBody: keepBody)
        stream.pending = body
        streams[id] = stream
        flush(id, into: &output)
        return id
    }

    /// Sends what flow control now allows of a stream's body.
    private mutating func flush(_ id: UInt32, into output: inout [UInt8]) {
        guard var stream = streams[id], stream.pendingOffset < stream.pending.count else { return }
        while stream.pendingOffset < stream.pending.count {
            let allowed = min(stream.sendWindow, connectionSendWindow, peerMaxFrameSize, stream.pending.count - stream.pendingOffset)
            guard allowed > 0 else { break }
            let end = stream.pendingOffset + allowed
            HTTP2Frame.writeData(
                stream: id, stream.pending[stream.pendingOffset..<end], endStream: end == stream.pending.count, into: &output)
            stream.pendingOffset = end
            stream.sendWindow -= allowed
            connectionSendWindow -= allowed
        }
        if stream.pendingOffset == stream.pending.count {
            stream.pending = []
            stream.pendingOffset = 0
        }
        streams[id] = stream
    }

    /// Cancels a stream this end no longer waits for (its timeout): RST_STREAM with CANCEL.
    mutating func cancel(_ id: UInt32, into output: inout [UInt8]) {
        guard streams.removeValue(forKey: id) != nil else { return }
        HTTP2Frame.resetStream(stream: id, error: .cancel).write(into: &output)
    }

    /// Takes the bytes the connection read; writes into `output` what they call for (SETTINGS
    /// and PING acknowledgments, window updates, body data a window opened for) and returns what
    /// became of the streams. Throws a connection error: the connection is then closed with
    /// GOAWAY and that error's code (`goAway(for:)`).
    mutating func receive(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws(HTTP2Failure) -> [Event] {
        input.append(contentsOf: bytes)
        var events: [Event] = []
        var consumed = 0
        defer {
            input.removeFirst(consumed)
            // A connection that goes idle keeps no large buffer: ten thousand of them would.
            if input.isEmpty && input.capacity > 4096 { input = [] }
        }
        while true {
            guard case .frame(let frame, let length) = try HTTP2Frame.read(input[consumed...], maxFrameSize: settings.maxFrameSize) else {
                break
            }
            consumed += length
            try handle(frame, events: &events, output: &output)
        }
        return events
    }

    /// The GOAWAY to send for a connection error.
    func goAway(for failure: HTTP2Failure) -> HTTP2Frame {
        .goAway(lastStream: 0, error: failure.error, debug: Array(failure.reason.utf8.prefix(128)))
    }

    private mutating func handle(_ frame: HTTP2Frame, events: inout [Event], output: inout [UInt8]) throws(HTTP2Failure) {
        if let continuing {
            guard case .continuation(let stream, let fragment, let endHeaders) = frame, stream == continuing.stream else {
                throw HTTP2Failure(.protocolError, "a frame other than CONTINUATION inside stream \(continuing.stream)'s header block")
            }
            guard continuing.block.count + fragment.count <= settings.maxHeaderBlockBytes else {
                throw HTTP2Failure(
                    .enhanceYourCalm, "stream \(continuing.stream)'s header block went past \(settings.maxHeaderBlockBytes) bytes")
            }
            guard endHeaders else {
                self.continuing?.block.append(contentsOf: fragment)
                return
            }
            self.continuing = nil
            try headerBlock(stream, continuing.block + fragment, endStream: continuing.endStream, events: &events)
            return
        }
        switch frame {
        case .settings, .ping:
            controlFrames += 1
            if controlFrames > settings.maxControlFrames {
                throw HTTP2Failure(
                    .enhanceYourCalm, "more than \(settings.maxControlFrames) PING and SETTINGS frames with no response between")
            }
        default:
            break
        }
        switch frame {
        case .settings(let values, let ack):
            if ack {
                settingsAcknowledged = true
                return
            }
            for (setting, value) in values {
                switch setting {
                case .headerTableSize: encoder.setMaxTableSize(min(Int(value), 4096))
                case .maxConcurrentStreams: peerMaxConcurrentStreams = Int(value)
                case .initialWindowSize:
                    // The change applies to every open stream's window (§6.9.2).
                    let delta = Int(value) - peerInitialWindow
                    peerInitialWindow = Int(value)
                    for id in streams.keys {
                        streams[id]?.sendWindow += delta
                        if streams[id]!.sendWindow > 0x7FFF_FFFF {
                            throw HTTP2Failure(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE took stream \(id)'s window above 2^31-1")
                        }
                    }
                case .maxFrameSize: peerMaxFrameSize = Int(value)
                case .enablePush, .maxHeaderListSize: break
                }
            }
            peerSettingsReceived = true
            HTTP2Frame.settings([], ack: true).write(into: &output)
            for id in streams.keys.sorted() { flush(id, into: &output) }
        case .ping(let data, let ack):
            if !ack { HTTP2Frame.ping(data, ack: true).write(into: &output) }
        case .windowUpdate(let stream, let increment):
            if stream == 0 {
                connectionSendWindow += Int(increment)
                guard connectionSendWindow <= 0x7FFF_FFFF else {
                    throw HTTP2Failure(.flowControlError, "the connection's send window above 2^31-1")
                }
                for id in streams.keys.sorted() { flush(id, into: &output) }
            } else if streams[stream] != nil {
                guard increment > 0 else {
                    // A stream error: that stream is reset, the connection goes on (§6.9).
                    streams[stream] = nil
                    HTTP2Frame.resetStream(stream: stream, error: .protocolError).write(into: &output)
                    events.append(.reset(stream: stream, error: .protocolError))
                    return
                }
                streams[stream]?.sendWindow += Int(increment)
                flush(stream, into: &output)
            }
        case .headers(let stream, let fragment, let endStream, let endHeaders):
            if endHeaders {
                guard fragment.count <= settings.maxHeaderBlockBytes else {
                    throw HTTP2Failure(.enhanceYourCalm, "stream \(stream)'s header block went past \(settings.maxHeaderBlockBytes) bytes")
                }
                try headerBlock(stream, fragment, endStream: endStream, events: &events)
            } else {
                continuing = (stream, fragment, endStream)
            }
        case .continuation(let stream, _, _):
            throw HTTP2Failure(.protocolError, "a CONTINUATION on stream \(stream) with no header block open")
        case .data(let stream, let data, let endStream):
            // Every DATA counts against the connection's window, whatever its stream (§6.9).
            connectionReceiveUnacknowledged += data.count
            if connectionReceiveUnacknowledged >= settings.connectionWindow / 2 {
                HTTP2Frame.windowUpdate(stream: 0, increment: UInt32(connectionReceiveUnacknowledged)).write(into: &output)
                connectionReceiveUnacknowledged = 0
            }
            guard var state = streams[stream] else { return }
            guard state.status != nil else { throw HTTP2Failure(.protocolError, "DATA on stream \(stream) before its HEADERS") }
            state.receiveWindow -= data.count
            guard state.receiveWindow >= 0 else { throw HTTP2Failure(.flowControlError, "stream \(stream) sent beyond its window") }
            state.bodyBytes += data.count
            guard state.bodyBytes <= settings.maxBodyBytes else {
                streams[stream] = nil
                HTTP2Frame.resetStream(stream: stream, error: .cancel).write(into: &output)
                events.append(.tooLarge(stream: stream))
                return
            }
            if state.keepBody { state.body.append(contentsOf: data) }
            state.unacknowledged += data.count
            if endStream {
                streams[stream] = nil
                controlFrames = 0
                events.append(
                    .response(
                        stream: stream,
                        Response(status: state.status ?? 0, headers: state.headers, body: state.body, bodyBytes: state.bodyBytes)))
                return
            }
            if state.unacknowledged >= settings.initialWindowSize / 2 {
                HTTP2Frame.windowUpdate(stream: stream, increment: UInt32(state.unacknowledged)).write(into: &output)
                state.receiveWindow += state.unacknowledged
                state.unacknowledged = 0
            }
            streams[stream] = state
        case .resetStream(let stream, let error):
            if streams.removeValue(forKey: stream) != nil { events.append(.reset(stream: stream, error: error)) }
        case .goAway(let lastStream, let error, _):
            goingAway = true
            let unprocessed = streams.keys.filter { $0 > lastStream }.sorted()
            for id in unprocessed { streams[id] = nil }
            events.append(.goAway(lastStream: lastStream, error: error, unprocessed: unprocessed))
        case .pushPromise:
            throw HTTP2Failure(.protocolError, "a PUSH_PROMISE, which SETTINGS_ENABLE_PUSH 0 forbids")
        case .priority, .unknown:
            break
        }
    }

}
