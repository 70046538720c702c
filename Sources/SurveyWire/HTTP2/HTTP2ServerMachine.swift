/// The server's side of one HTTP/2 connection (RFC 9113) as a state machine of bytes, the
/// mirror of `HTTP2ClientMachine`: what the connection reads goes in, what it must write comes
/// out, and the requests the client completed are reported as events, each already the
/// `HTTPServerRequest` the HTTP/1.1 server hands its handler. No sockets, no clock.
///
/// It reads the client's preface and SETTINGS and sends its own (with its limit of concurrent
/// streams), acknowledges SETTINGS and PING, keeps HPACK in both directions and flow control of
/// the connection and of each stream both ways (sending within the client's windows and queueing
/// the rest; giving back what it reads, at once or when told), and handles RST_STREAM, GOAWAY
/// and header blocks across CONTINUATION frames.
///
/// A hostile client stays bounded: a header block is read up to `maxHeaderBlockBytes` and
/// decoded up to four times `maxHeaderListSize` (an HPACK bomb ends the connection), a header
/// list above `maxHeaderListSize` is answered 431 and a body above `maxBodyBytes` 413 on their
/// stream, streams above `maxConcurrentStreams` are refused, and frames that ask for work but
/// finish no response (PING, SETTINGS, WINDOW_UPDATE, RST_STREAM, PRIORITY, empty DATA and
/// CONTINUATION, unknown types) end the connection with ENHANCE_YOUR_CALM past
/// `maxControlFrames` between two responses.
struct HTTP2ServerMachine: Sendable {
    /// This end's SETTINGS and limits.
    struct Settings: Sendable, Equatable {
        /// Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS).
        var maxConcurrentStreams = 128
        /// Each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE): a request body this
        /// large is read without waiting for a WINDOW_UPDATE.
        var initialWindowSize = 65_535
        /// The connection's receive window, raised from RFC 9113's 65,535 by a WINDOW_UPDATE.
        var connectionWindow = 1 << 20
        /// The header list a request may have (SETTINGS_MAX_HEADER_LIST_SIZE); a larger one is
        /// answered 431.
        var maxHeaderListSize = 8 * 1024
        /// The largest request body read; a larger one is answered 413.
        var maxBodyBytes = 64 * 1024
        /// Frames that finish no response taken between two responses before the client is told
        /// to calm down.
        var maxControlFrames = 10_000
        /// Whether the machine gives back the windows it reads as it reads them; when false, the
        /// connection does it with `returnWindows(into:)`, as slowly as it likes (a slow window).
        var returnsWindows = true
        /// Whether requests keep their `Authorization`, `Cookie` and other header fields.
        var credentials = false
        /// The loop the connection runs on, for the requests' `loopIndex`.
        var loopIndex = 0

        /// The largest header block read, CONTINUATIONs included, before HPACK decodes it.
        var maxHeaderBlockBytes: Int { max(maxHeaderListSize * 2, 16 * 1024) }
    }

    /// What the client's frames brought.
    enum Event: Sendable {
        /// A request, whole: headers and body (its stream is half-closed by the client).
        case request(stream: UInt32, HTTPServerRequest)
        /// A request that arrived on a stream above the last one a GOAWAY of this end kept: it is
        /// not answered, and the client sends it again elsewhere.
        case unanswered(stream: UInt32, HTTPServerRequest)
        /// A request answered by the machine itself for breaking a limit or the protocol
        /// (`431`, `413`, `400`): it never reaches the handler.
        case rejected(stream: UInt32, status: Int)
        /// The client reset a stream this end had not finished.
        case cancelled(stream: UInt32, error: HTTP2Error)
        /// The client is going away.
        case goAway(lastStream: UInt32, error: HTTP2Error)
    }

    struct Stream: Sendable {
        var fields: [HPACK.Field] = []
        var body: [UInt8] = []
        var receiveWindow: Int
        /// Bytes read and not yet given back by a WINDOW_UPDATE.
        var unreturned = 0
        /// The client has not ended its side yet.
        var receiving = true
        var expectedLength: Int?
        var head = false
        var sendWindow: Int
        /// Body bytes waiting for the windows, and whether the response ends with them.
        var pending: [UInt8] = []
        var pendingOffset = 0
        var endAfterPending = false
        /// The response's HEADERS went out.
        var responding = false
        /// END_STREAM went out (or will, once `pending` is sent).
        var ended = false
        /// Answered by the machine (413, 431): the request never reaches the handler.
        var rejected = false
        /// Its request went to the handler.
        var dispatched = false
    }

    let settings: Settings
    var encoder = HPACKEncoder()
    var decoder: HPACKDecoder
    var streams: [UInt32: Stream] = [:]
    /// The preface's bytes still expected; 0 once read.
    private var prefaceLeft = HTTP2Frame.preface.count
    private var clientSettingsReceived = false
    /// The highest stream the client opened.
    var lastClientStream: UInt32 = 0
    /// The highest stream whose request went to the handler.
    var lastProcessedStream: UInt32 = 0
    var peerInitialWindow = 65_535
    var peerMaxFrameSize = HTTP2Frame.defaultMaxFrameSize
    var connectionSendWindow = 65_535
    var connectionReceiveWindow = 65_535
    var connectionUnreturned = 0
    /// The window a new stream starts with: RFC 9113's until the client acknowledged this end's
    /// SETTINGS, whose window it may not have seen before sending.
    var receiveInitialWindow = 65_535
    private var input: [UInt8] = []
    private var continuing: (stream: UInt32, block: [UInt8], endStream: Bool)?
    var controlFrames = 0
    /// Set once this end sent GOAWAY: streams above this one are not processed.
    private(set) var goAwayLastStream: UInt32?
    /// Set once the client sent GOAWAY.
    private(set) var clientGoingAway = false

    init(settings: Settings = Settings()) {
        self.settings = settings
        decoder = HPACKDecoder(maxTableSize: 4096, maxListSize: settings.maxHeaderListSize * 4)
    }

    /// Streams open: opened by the client and not yet answered in full or reset.
    var openStreams: Int { streams.count }

    /// Whether `stream` is open and not yet answered (its response may still go out).
    func awaitsResponse(_ stream: UInt32) -> Bool {
        guard let state = streams[stream] else { return false }
        return !state.responding && !state.rejected
    }

    /// Whether `stream` is open: its response, or part of it, may still go out.
    func isOpen(_ stream: UInt32) -> Bool { streams[stream] != nil }

    /// Whether bytes read wait to be given back (`returnWindows(into:)`).
    var hasUnreturnedWindow: Bool {
        connectionUnreturned > 0 || streams.values.contains { $0.unreturned > 0 && $0.receiving }
    }

    /// Response bytes held by flow control or by `writeAllowance`, on every stream.
    var pendingBytes: Int { streams.values.reduce(0) { $0 + $1.pending.count - $1.pendingOffset } }

    /// Body bytes this end may still write before the connection has sent what it holds: a
    /// window of the connection's own, so that a client that opens wide windows and never reads
    /// cannot make the server copy every response it asked for into memory. The connection sets
    /// it before handing bytes over, and calls `resume(into:)` when its writes catch up.
    var writeAllowance = Int.max

    /// Sends what the windows and `writeAllowance` now allow of every stream's waiting body.
    mutating func resume(into output: inout [UInt8]) {
        for id in streams.keys.sorted() where streams[id].map({ $0.pendingOffset < $0.pending.count }) == true {
            flush(id, into: &output)
        }
    }

    /// The server's first frames: its SETTINGS (limit of streams, windows, header list size) and
    /// the connection's window raised.
    mutating func start(into output: inout [UInt8]) {
        var values: [(HTTP2Setting, UInt32)] = [
            (.maxConcurrentStreams, UInt32(settings.maxConcurrentStreams)),
            (.maxHeaderListSize, UInt32(settings.maxHeaderListSize)),
        ]
        if settings.initialWindowSize != 65_535 { values.append((.initialWindowSize, UInt32(settings.initialWindowSize))) }
        HTTP2Frame.settings(values, ack: false).write(into: &output)
        if settings.connectionWindow > 65_535 {
            HTTP2Frame.windowUpdate(stream: 0, increment: UInt32(settings.connectionWindow - 65_535)).write(into: &output)
            connectionReceiveWindow = settings.connectionWindow
        }
    }

    /// Takes the bytes the connection read; writes into `output` what they call for and returns
    /// the requests they completed. Throws a connection error: the connection then sends
    /// `goAway(for:)` and closes.
    mutating func receive(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws(HTTP2Failure) -> [Event] {
        input.append(contentsOf: bytes)
        var consumed = 0
        defer { input.removeFirst(consumed) }
        if prefaceLeft > 0 {
            let expected = HTTP2Frame.preface[(HTTP2Frame.preface.count - prefaceLeft)...]
            let taken = input.prefix(prefaceLeft)
            guard taken.elementsEqual(expected.prefix(taken.count)) else {
                throw HTTP2Failure(.protocolError, "the connection did not start with HTTP/2's preface")
            }
            prefaceLeft -= taken.count
            consumed = taken.count
            if prefaceLeft > 0 { return [] }
        }
        var events: [Event] = []
        while true {
            guard case .frame(let frame, let length) = try HTTP2Frame.read(input[consumed...], maxFrameSize: HTTP2Frame.defaultMaxFrameSize)
            else { break }
            consumed += length
            try handle(frame, events: &events, output: &output)
        }
        return events
    }

    /// The GOAWAY for a connection error: the streams processed so far are kept.
    func goAway(for failure: HTTP2Failure) -> HTTP2Frame {
        .goAway(lastStream: lastProcessedStream, error: failure.error, debug: Array(failure.reason.utf8.prefix(128)))
    }

    /// Sends GOAWAY: streams above `lastStream` (the last processed when nil) are not answered,
    /// those at or below it still are. A later GOAWAY may only lower it. Returns the requests
    /// above it that were still arriving: read, never to be answered.
    mutating func goAway(lastStream: UInt32? = nil, error: HTTP2Error = .noError, into output: inout [UInt8]) -> [HTTPServerRequest] {
        var last = lastStream ?? lastProcessedStream
        if let previous = goAwayLastStream { last = min(last, previous) }
        goAwayLastStream = last
        HTTP2Frame.goAway(lastStream: last, error: error, debug: []).write(into: &output)
        var dropped: [HTTPServerRequest] = []
        for id in streams.keys.sorted() where id > last {
            guard let state = streams[id], !state.responding else { continue }
            if !state.dispatched && !state.rejected { dropped.append(request(id, state)) }
            streams[id] = nil
        }
        return dropped
    }

    /// Resets a stream (RST_STREAM): its request is not answered.
    mutating func reset(_ id: UInt32, error: HTTP2Error, into output: inout [UInt8]) {
        guard streams.removeValue(forKey: id) != nil else { return }
        HTTP2Frame.resetStream(stream: id, error: error).write(into: &output)
    }

    mutating func calm(_ what: String) throws(HTTP2Failure) {
        controlFrames += 1
        if controlFrames > settings.maxControlFrames {
            throw HTTP2Failure(
                .enhanceYourCalm, "more than \(settings.maxControlFrames) frames (\(what) the last) with no response between")
        }
    }

    private mutating func handle(_ frame: HTTP2Frame, events: inout [Event], output: inout [UInt8]) throws(HTTP2Failure) {
        if !clientSettingsReceived {
            guard case .settings(_, ack: false) = frame else {
                throw HTTP2Failure(.protocolError, "the preface was not followed by SETTINGS")
            }
        }
        if let continuing {
            guard case .continuation(let stream, let fragment, let endHeaders) = frame, stream == continuing.stream else {
                throw HTTP2Failure(.protocolError, "a frame other than CONTINUATION inside stream \(continuing.stream)'s header block")
            }
            guard continuing.block.count + fragment.count <= settings.maxHeaderBlockBytes else {
                throw HTTP2Failure(
                    .enhanceYourCalm, "stream \(continuing.stream)'s header block went past \(settings.maxHeaderBlockBytes) bytes")
            }
            if fragment.isEmpty && !endHeaders { try calm("an empty CONTINUATION") }
            guard endHeaders else {
                self.continuing?.block.append(contentsOf: fragment)
                return
            }
            self.continuing = nil
            try headerBlock(stream, continuing.block + fragment, endStream: continuing.endStream, events: &events, output: &output)
            return
        }
        switch frame {
        case .settings(let values, let ack):
            try calm("SETTINGS")
            if ack {
                // The client now counts with this end's window: streams follow it.
                let delta = settings.initialWindowSize - receiveInitialWindow
                receiveInitialWindow = settings.initialWindowSize
                for id in streams.keys { streams[id]?.receiveWindow += delta }
                return
            }
            clientSettingsReceived = true
            for (setting, value) in values {
                switch setting {
                case .headerTableSize: encoder.setMaxTableSize(min(Int(value), 4096))
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
                case .enablePush, .maxConcurrentStreams, .maxHeaderListSize: break
                }
            }
            HTTP2Frame.settings([], ack: true).write(into: &output)
            for id in streams.keys.sorted() { flush(id, into: &output) }
        case .ping(let data, let ack):
            try calm("PING")
            if !ack { HTTP2Frame.ping(data, ack: true).write(into: &output) }
        case .windowUpdate(let stream, let increment):
            try calm("WINDOW_UPDATE")
            if stream == 0 {
                connectionSendWindow += Int(increment)
                guard connectionSendWindow <= 0x7FFF_FFFF else {
                    throw HTTP2Failure(.flowControlError, "the connection's send window above 2^31-1")
                }
                for id in streams.keys.sorted() { flush(id, into: &output) }
                return
            }
            if stream > lastClientStream { throw HTTP2Failure(.protocolError, "a WINDOW_UPDATE on idle stream \(stream)") }
            guard var state = streams[stream] else { return }
            guard increment > 0, state.sendWindow + Int(increment) <= 0x7FFF_FFFF else {
                // A stream error: that stream is reset, the connection goes on (§6.9, §6.9.1).
                streams[stream] = nil
                HTTP2Frame.resetStream(stream: stream, error: increment == 0 ? .protocolError : .flowControlError).write(into: &output)
                events.append(.cancelled(stream: stream, error: .protocolError))
                return
            }
            state.sendWindow += Int(increment)
            streams[stream] = state
            flush(stream, into: &output)
        case .headers(let stream, let fragment, let endStream, let endHeaders):
            guard stream & 1 == 1 else {
                throw HTTP2Failure(.protocolError, "HEADERS on even stream \(stream), which a client cannot open")
            }
            if stream <= lastClientStream, streams[stream]?.receiving != true {
                // Trailers on a stream still open are fine; anything else on a closed one is not
                // (§5.1), unless this end closed it first: a reset stream's frames are ignored.
                if !endStream || streams[stream] != nil {
                    throw HTTP2Failure(.streamClosed, "HEADERS on stream \(stream), which is closed")
                }
            }
            guard fragment.count <= settings.maxHeaderBlockBytes else {
                throw HTTP2Failure(.enhanceYourCalm, "stream \(stream)'s header block went past \(settings.maxHeaderBlockBytes) bytes")
            }
            if endHeaders {
                try headerBlock(stream, fragment, endStream: endStream, events: &events, output: &output)
            } else {
                continuing = (stream, fragment, endStream)
            }
        case .continuation(let stream, _, _):
            throw HTTP2Failure(.protocolError, "a CONTINUATION on stream \(stream) with no header block open")
        case .data(let stream, let data, let endStream):
            try receiveData(stream, data, endStream: endStream, events: &events, output: &output)
        case .resetStream(let stream, let error):
            try calm("RST_STREAM")
            if stream > lastClientStream { throw HTTP2Failure(.protocolError, "a RST_STREAM on idle stream \(stream)") }
            if streams.removeValue(forKey: stream) != nil { events.append(.cancelled(stream: stream, error: error)) }
        case .goAway(let lastStream, let error, _):
            try calm("GOAWAY")
            clientGoingAway = true
            events.append(.goAway(lastStream: lastStream, error: error))
        case .pushPromise:
            throw HTTP2Failure(.protocolError, "a PUSH_PROMISE from a client")
        case .priority:
            try calm("PRIORITY")
        case .unknown:
            try calm("an unknown frame")
        }
    }

    private mutating func receiveData(_ stream: UInt32, _ data: [UInt8], endStream: Bool, events: inout [Event], output: inout [UInt8])
        throws(HTTP2Failure)
    {
        if data.isEmpty && !endStream { try calm("an empty DATA") }
        // Every DATA counts against the connection's window, whatever its stream (§6.9).
        connectionReceiveWindow -= data.count
        guard connectionReceiveWindow >= 0 else { throw HTTP2Failure(.flowControlError, "the client sent beyond the connection's window") }
        connectionUnreturned += data.count
        if settings.returnsWindows && connectionUnreturned >= settings.connectionWindow / 2 {
            HTTP2Frame.windowUpdate(stream: 0, increment: UInt32(connectionUnreturned)).write(into: &output)
            connectionReceiveWindow += connectionUnreturned
            connectionUnreturned = 0
        }
        if stream > lastClientStream { throw HTTP2Failure(.protocolError, "DATA on idle stream \(stream)") }
        guard var state = streams[stream] else {
            // A stream this end reset or answered early: ignored. One the client closed: an error.
            return
        }
        guard state.receiving else { throw HTTP2Failure(.streamClosed, "DATA on stream \(stream) after the client ended it") }
        state.receiveWindow -= data.count
        guard state.receiveWindow >= 0 else { throw HTTP2Failure(.flowControlError, "stream \(stream) sent beyond its window") }
        state.unreturned += data.count
        if !state.rejected {
            guard state.body.count + data.count <= settings.maxBodyBytes else {
                reject(stream, &state, status: 413, events: &events, output: &output)
                return
            }
            state.body.append(contentsOf: data)
        }
        if endStream {
            state.receiving = false
            streams[stream] = state
            complete(stream, events: &events, output: &output)
            return
        }
        if settings.returnsWindows && state.unreturned >= receiveInitialWindow / 2 {
            HTTP2Frame.windowUpdate(stream: stream, increment: UInt32(state.unreturned)).write(into: &output)
            state.receiveWindow += state.unreturned
            state.unreturned = 0
        }
        streams[stream] = state
    }

    /// Answers a request the machine refuses (`413`, `431`, `400`) on its own; the stream closes
    /// as the response ends, reset with NO_ERROR if the client still sends.
    mutating func reject(_ id: UInt32, _ state: inout Stream, status: Int, events: inout [Event], output: inout [UInt8]) {
        state.rejected = true
        state.body = []
        state.fields = []
        streams[id] = state
        events.append(.rejected(stream: id, status: status))
        let fields = [HPACK.Field("server", "survey-bot"), HPACK.Field("content-length", "0")]
        sendHeaders(id, status: status, fields: fields, endStream: true, into: &output)
    }

}
