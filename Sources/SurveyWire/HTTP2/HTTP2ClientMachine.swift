/// The client's side of one HTTP/2 connection (RFC 9113) as a state machine of bytes: what the
/// connection reads goes in, what it must write comes out, and what the streams became is
/// reported as events. No sockets, no clock: the connection that owns it does the I/O, so
/// that it runs on the event loop like HTTP/1.1 and is tested without a network.
///
/// The connection's part (preface, SETTINGS, flow control, PING, stream ids, bounds) is its
/// `HTTP2ConnectionMachine` in the client's role; this one adds the requests: each on a stream
/// of its own, its body sent within the server's windows, its response read whole (`+Headers`),
/// the server's limit of concurrent streams, RST_STREAM and GOAWAY as they touch the requests.
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
        /// Frames that finish no response (PING, SETTINGS, WINDOW_UPDATE and the like) taken
        /// between two responses before the peer is told to calm down: each calls for work, and
        /// a peer that sends them without end would keep the connection busy answering.
        var maxControlFrames = 10_000
    }

    /// A response, whole.
    struct Response: Sendable, Equatable {
        var status: Int
        var headers: [HPACK.Field]
        /// The body, when the request asked to keep it; else a failure's first bytes
        /// (`TransportResponse.failureBodyLimit`), or empty.
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

    /// A request's stream: its body still to send, its response as far as it came.
    struct Stream: HTTP2StreamState {
        var sendWindow: FlowWindow
        var receiveWindow: FlowWindow
        var outbound = HTTP2Outbound()
        var status: Int?
        var headers: [HPACK.Field] = []
        var body: [UInt8] = []
        var bodyBytes = 0
        /// Whether the body is kept, or only counted.
        var keepBody: Bool
        /// Whether every header field is kept, or only `retry-after` (which retries read) and,
        /// with `keepCookies`, `set-cookie`.
        var keepHeaders = true
        /// Whether `set-cookie` fields are kept when the others are not: a cookie jar reads them
        /// alone, and every other field of every response would be decoded and gathered for nothing.
        var keepCookies = false
        /// A stream is dropped once its response ended: while kept, the server still sends.
        var receiving: Bool { true }

        /// Takes a DATA frame's bytes: counted against the stream's window, kept or counted (a
        /// failure's first bytes kept in any case). False when the body went past
        /// `maxBodyBytes`.
        mutating func take(_ data: ArraySlice<UInt8>, stream: UInt32, maxBodyBytes: Int) throws(HTTP2Failure) -> Bool {
            guard status != nil else { throw HTTP2Failure(.protocolError, "DATA on stream \(stream) before its HEADERS") }
            try receiveWindow.consume(data.count, stream: stream)
            bodyBytes += data.count
            guard bodyBytes <= maxBodyBytes else { return false }
            if keepBody {
                body.append(contentsOf: data)
            } else if TransportResponse.keepsFailureBody(status ?? 0), body.count < TransportResponse.failureBodyLimit {
                // A failure's first bytes, for the server's reason: never a success's.
                body.append(contentsOf: data.prefix(TransportResponse.failureBodyLimit - body.count))
            }
            return true
        }
    }

    let settings: Settings
    var connection: HTTP2ConnectionMachine<Stream>

    init(settings: Settings = Settings()) {
        self.settings = settings
        var local = HTTP2Settings()
        local.headerTableSize = settings.headerTableSize
        local.enablePush = false
        local.initialWindowSize = settings.initialWindowSize
        local.maxFrameSize = settings.maxFrameSize
        local.maxHeaderListSize = settings.maxHeaderListSize
        connection = HTTP2ConnectionMachine(
            role: .client, local: local,
            decoder: HPACKDecoder(maxTableSize: settings.headerTableSize, maxListSize: settings.maxHeaderListSize),
            returnsWindows: true, maxHeaderBlockBytes: settings.maxHeaderBlockBytes, maxControlFrames: settings.maxControlFrames)
    }

    /// Streams open: sent and not yet answered or reset.
    var openStreams: Int { connection.streams.count }

    /// The peer's limit of concurrent streams, unlimited until its SETTINGS say.
    var peerMaxConcurrentStreams: Int { connection.peer.maxConcurrentStreams }

    /// Whether the peer acknowledged this end's SETTINGS.
    var settingsAcknowledged: Bool { connection.localAcknowledged }

    /// Whether the peer's SETTINGS have come (its limit of concurrent streams is known).
    var peerSettingsReceived: Bool { connection.peerSettingsReceived }

    /// Set once the peer sent GOAWAY: no new stream.
    var goingAway: Bool { connection.peerGoingAway }

    /// Whether another request may go out now: under the peer's limit, and not going away.
    var canOpenStream: Bool { !goingAway && openStreams < peerMaxConcurrentStreams && hasStreamIDs }

    /// Whether stream ids are left for new requests: a connection that used its 2^30 of them
    /// carries no more and is closed once its last stream ends (§5.1.1).
    var hasStreamIDs: Bool { connection.hasStreamIDs }

    /// The streams this end may have open at once: the peer's limit, or 100 before its SETTINGS
    /// say (the least RFC 9113 §6.5.2 recommends a peer allow).
    var streamLimit: Int { peerSettingsReceived ? peerMaxConcurrentStreams : min(peerMaxConcurrentStreams, 100) }

    /// The connection's first bytes: the preface, this end's SETTINGS, and the connection window raised.
    mutating func start(into output: inout [UInt8]) {
        connection.start(
            announcing: [.headerTableSize, .enablePush, .initialWindowSize, .maxFrameSize, .maxHeaderListSize],
            connectionWindow: settings.connectionWindow, into: &output)
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
    /// connection's encoder into the block it is given; its body is kept only when `keepBody`,
    /// its response's fields only when `keepHeaders` (`set-cookie` alone with `keepCookies`).
    /// The block's buffer is the machine's, reused: no allocation per request for it.
    mutating func send(
        encodingHeaders encode: (inout HPACKEncoder, inout [UInt8]) -> Void, body: [UInt8], keepBody: Bool, keepHeaders: Bool = true,
        keepCookies: Bool = false, into output: inout [UInt8]
    ) -> UInt32 {
        let id = connection.openLocalStream()
        connection.sendHeaders(id, encodingWith: encode, endStream: body.isEmpty, into: &output)
        open(id, body: body, keepBody: keepBody, keepHeaders: keepHeaders, keepCookies: keepCookies, into: &output)
        return id
    }

    /// Sends a request of `fields`, pseudo-header fields first, on a new stream; its body is
    /// kept only when `keepBody`.
    mutating func send(_ fields: [HPACK.Field], body: [UInt8], keepBody: Bool, into output: inout [UInt8]) -> UInt32 {
        let id = connection.openLocalStream()
        connection.sendHeaders(id, fields, endStream: body.isEmpty, into: &output)
        open(id, body: body, keepBody: keepBody, keepHeaders: true, keepCookies: false, into: &output)
        return id
    }

    /// Keeps the stream whose HEADERS went out and sends what the windows allow of its body,
    /// before it is stored: one store, rather than a store, a copy out and a store again.
    private mutating func open(
        _ id: UInt32, body: [UInt8], keepBody: Bool, keepHeaders: Bool, keepCookies: Bool, into output: inout [UInt8]
    ) {
        var stream = Stream(
            sendWindow: FlowWindow(connection.peer.initialWindowSize), receiveWindow: FlowWindow(connection.receiveInitialWindow),
            keepBody: keepBody)
        stream.keepHeaders = keepHeaders
        stream.keepCookies = keepCookies
        if !body.isEmpty {
            stream.outbound.append(body, endStream: true)
            _ = HTTP2ConnectionMachine.send(
                &stream, id, connectionSend: &connection.connectionSend, allowance: &connection.writeAllowance,
                maxFrameSize: connection.peer.maxFrameSize, into: &output)
        }
        connection.streams.insertNew(consume stream, for: id)
    }

    /// Cancels a stream this end no longer waits for (its timeout): RST_STREAM with CANCEL.
    mutating func cancel(_ id: UInt32, into output: inout [UInt8]) {
        connection.reset(id, error: .cancel, into: &output)
    }

    /// Takes the bytes the connection read; writes into `output` what they call for (SETTINGS
    /// and PING acknowledgments, window updates, body data a window opened for) and returns what
    /// became of the streams. Throws a connection error: the connection is then closed with
    /// GOAWAY and that error's code (`goAway(for:)`).
    mutating func receive(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws(HTTP2Failure) -> [Event] {
        var events: [Event] = []
        try receive(bytes, into: &output, events: &events)
        return events
    }

    /// `receive(_:into:)` appending what became of the streams to `events`: a connection that
    /// reads a response at a time keeps one list for its reads rather than making one per read.
    mutating func receive(_ bytes: some Collection<UInt8>, into output: inout [UInt8], events: inout [Event]) throws(HTTP2Failure) {
        connection.take(bytes)
        while let inbound = try connection.next(into: &output) {
            switch inbound {
            case .headers(let stream, let block, let endStream, _):
                try headerBlock(stream, connection.bytes(block), endStream: endStream, events: &events)
            case .data(let stream, let data, let endStream):
                try receiveData(stream, connection.bytes(data), endStream: endStream, events: &events, output: &output)
            case .reset(let stream, let error), .streamError(let stream, let error):
                events.append(.reset(stream: stream, error: error))
            case .goAway(let lastStream, let error):
                let unprocessed = connection.streams.keys.filter { $0 > lastStream }.sorted()
                for id in unprocessed { connection.streams[id] = nil }
                events.append(.goAway(lastStream: lastStream, error: error, unprocessed: unprocessed))
            }
        }
    }

    /// The GOAWAY to send for a connection error.
    func goAway(for failure: HTTP2Failure) -> HTTP2Frame {
        connection.goAway(for: failure)
    }
}
