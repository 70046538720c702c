/// What the pool's machine asks of an HTTP/1.1 connection: its place in the busy or own idle list
/// (`Slotted`), and whether it can carry another request.
protocol PoolHTTP1Connection: Slotted {
    /// Whether an idle connection can carry another request: the peer has not closed it.
    func isStillOpen() -> Bool
}

/// What the pool's machine asks of an HTTP/2 connection: its place in the busy list (`Slotted`),
/// whether it has room for another stream, and whether it is listed as having some.
protocol PoolHTTP2Connection: Slotted {
    /// Whether another attempt may join it: open or opening, not going away, under its limits.
    var hasCapacity: Bool { get }
    /// Whether it carries attempts, sent or waiting.
    var isBusy: Bool { get }
    var isClosed: Bool { get }
    /// Whether a GOAWAY means it takes no more streams.
    var isGoingAway: Bool { get }
    /// Whether it is in the list of connections with room (`h2Ready`); the machine keeps it.
    var listedReady: Bool { get set }
    /// Whether it is one respondent's own, never listed for others' attempts.
    var owned: Bool { get }
}

/// A respondent holding its own connections (`connections: per_respondent`), as the machine sees it.
protocol PoolDevice: AnyObject {
    associatedtype HTTP1: PoolHTTP1Connection
    associatedtype HTTP2: PoolHTTP2Connection
    var http1: HTTP1? { get set }
    var http2: HTTP2? { get set }
    /// Set when its respondent has left: its connections are kept no longer.
    var released: Bool { get set }
}

/// An attempt as the machine sees it: whose it is, and when it expires waiting.
protocol PoolAttempt {
    associatedtype Device: PoolDevice
    /// The respondent's own connections it goes out on; nil for the loop's shared ones.
    var device: Device? { get }
    /// When the attempt expires, under the client's `timeout` (nanoseconds of the monotonic clock).
    func expiry(timeout: UInt64) -> UInt64
}

/// One loop's connection pool as a state machine without I/O: the lists of connections of each
/// protocol, the protocol new connections speak, the TLS set-ups under way and the attempts
/// waiting for one to end. Events go in (an attempt arrives, a connection became idle, a set-up
/// ended, ALPN said which protocol, a respondent left, a sweep at a time); out comes what the
/// I/O — `ConnectionPool` — does: send on a connection, open one, close one, wait, fail.
///
/// It opens, closes and reads nothing, and reads no clock: time comes in as arguments. It is
/// generic over the attempt, whose device names the connection types, so that tests drive it
/// with plain values. A connection's slot in the busy lists and its `listedReady` flag are kept
/// on the connection itself (constant-time removal), but only the machine writes them.
struct ConnectionPoolMachine<Attempt: PoolAttempt> {
    typealias Device = Attempt.Device
    typealias HTTP1 = Device.HTTP1
    typealias HTTP2 = Device.HTTP2

    /// What becomes of an attempt.
    enum Start {
        /// Send it on this HTTP/1.1 connection, taken off an idle list and now in `busy`.
        case http1(HTTP1)
        /// Send it as another stream of this HTTP/2 connection; then tell `tookStream`.
        case http2(HTTP2)
        /// Open a new connection of this kind and send it there; then tell `opened`.
        case open(NewConnection)
        /// It waits in the queue for a set-up to end or a kept-alive connection (`maxSettingUp`).
        case wait
    }

    /// The kind of a new connection.
    enum NewConnection: Equatable {
        case http1
        /// An HTTP/2 connection for the loop's attempts (one that negotiates by ALPN, too): room
        /// for `capacity` at once, `Int.max` under `connections: shared`.
        case http2(capacity: Int)
        /// An HTTP/2 connection of the attempt's respondent alone, one stream at a time.
        case ownHTTP2
    }

    /// What the I/O does for an attempt: first close `closing` (a respondent's own connection
    /// that could carry nothing more), then carry out `start`.
    struct Decision {
        var start: Start
        var closing: HTTP1?
    }

    /// Whether connections are over TLS: only their set-ups are throttled (`maxSettingUp`).
    let tls: Bool
    let version: HTTPVersion
    let sharing: ConnectionSharing
    /// The most TLS set-ups under way at once.
    let maxSettingUp: Int
    /// The protocol new connections speak; nil until the first TLS handshake says.
    var negotiated: WireProtocol?

    /// Shared idle HTTP/1.1 connections, the last one idle at the end (taken first).
    var idle: [HTTP1] = []
    /// HTTP/1.1 connections carrying an attempt.
    var busy: [HTTP1] = []
    /// Respondents' own HTTP/1.1 connections idle between their requests: out of `idle`, which
    /// any attempt may take, and closed when their respondent leaves.
    var ownedIdle: [HTTP1] = []
    /// Respondents' own HTTP/2 connections, busy or not, until they close.
    var ownedHTTP2: [ObjectIdentifier: HTTP2] = [:]
    /// HTTP/2 connections carrying attempts, sent or waiting for a stream.
    var h2Busy: [HTTP2] = []
    /// HTTP/2 connections that can take another attempt, the last one first; checked again
    /// when taken, since a server's SETTINGS may shrink a connection's room meanwhile.
    var h2Ready: [HTTP2] = []

    /// TLS connections in their connect or handshake.
    var settingUp = 0
    /// The most at once so far.
    var settingUpPeak = 0
    /// Attempts waiting to open a connection, oldest first from `pendingHead`.
    private(set) var pending: [Attempt] = []
    private(set) var pendingHead = 0
    /// Whether a pass over the waiting attempts is under way, and where it stops.
    private var passing = false
    private var passEnd = 0

    init(tls: Bool, version: HTTPVersion, sharing: ConnectionSharing, maxSettingUp: Int) {
        self.tls = tls
        self.version = version
        self.sharing = sharing
        self.maxSettingUp = maxSettingUp
        switch (tls, version) {
        case (false, .http2): negotiated = .h2c
        case (false, _), (true, .http1): negotiated = .http1
        case (true, _): negotiated = nil
        }
    }

    /// Whether new connections negotiate by ALPN with h2 on offer.
    var negotiatesByALPN: Bool { tls && version != .http1 }

    /// Whether attempts are in flight or waiting: expiries need checking.
    var needsSweep: Bool { !busy.isEmpty || !h2Busy.isEmpty || pendingHead < pending.count }

    /// The attempts waiting, oldest first.
    var waiting: ArraySlice<Attempt> { pending[pendingHead...] }

    // MARK: Attempts

    /// An attempt arrives: on the respondent's own connection when it can take it (whichever
    /// protocol that one speaks), else the last idle shared one, else a new one, or it waits.
    mutating func start(_ attempt: Attempt) -> Decision {
        var closing: HTTP1?
        if let device = attempt.device, let start = startOnOwn(device, closing: &closing) {
            return Decision(start: start, closing: closing)
        }
        guard negotiated == .http1 else { return Decision(start: startHTTP2(attempt, fresh: false), closing: closing) }
        return Decision(start: send(attempt, on: attempt.device == nil ? takeIdle() : nil), closing: closing)
    }

    /// The shared attempt's shortcut, asked before it is made into an `Attempt`: the last idle
    /// shared HTTP/1.1 connection, now busy, when the loop speaks HTTP/1.1 and has one — what
    /// `start` decides for an attempt without a device then. Nil: `start` decides.
    mutating func startOnIdle() -> HTTP1? {
        guard negotiated == .http1, let reusable = takeIdle() else { return nil }
        busy.appendSlotted(reusable)
        return reusable
    }

    /// An attempt that never left starts again (its connection went away or turned to
    /// HTTP/1.1 before sending it).
    mutating func restart(_ attempt: Attempt) -> Decision {
        var closing: HTTP1?
        let start = restart(attempt, closing: &closing)
        return Decision(start: start, closing: closing)
    }

    private mutating func restart(_ attempt: Attempt, closing: inout HTTP1?) -> Start {
        if let device = attempt.device, let start = startOnOwn(device, closing: &closing) { return start }
        return negotiated == .http1 ? send(attempt, on: nil) : startHTTP2(attempt, fresh: false)
    }

    /// An HTTP/1.1 attempt whose kept-alive connection the server closed before answering goes
    /// out again on a new connection.
    mutating func reconnect(_ attempt: Attempt) -> Start {
        send(attempt, on: nil)
    }

    /// An attempt goes out over HTTP/2: a respondent's on a new connection of its own; else on
    /// the connection that last had room, or a new one (`fresh`: a new one in any case — the
    /// first of the attempts a GOAWAY left unprocessed).
    mutating func startHTTP2(_ attempt: Attempt, fresh: Bool) -> Start {
        if attempt.device != nil { return mayOpen(attempt) ? .open(.ownHTTP2) : .wait }
        if !fresh {
            while let candidate = h2Ready.last {
                guard candidate.hasCapacity else {
                    noLongerReady(candidate)
                    continue
                }
                return .http2(candidate)
            }
        }
        return mayOpen(attempt) ? .open(.http2(capacity: sharing == .shared ? Int.max : 1)) : .wait
    }

    /// The respondent's own connection that can take its attempt: its HTTP/1.1 one open and
    /// idle, or its HTTP/2 one with room. An own HTTP/1.1 connection that is not is let go,
    /// to be closed (`closing`).
    private mutating func startOnOwn(_ device: Device, closing: inout HTTP1?) -> Start? {
        if let own = device.http1 {
            ownedIdle.removeSlotted(own)
            if own.isStillOpen() {
                busy.appendSlotted(own)
                return .http1(own)
            }
            closing = own
            device.http1 = nil
        }
        guard let own = device.http2, own.hasCapacity else { return nil }
        return .http2(own)
    }

    private mutating func send(_ attempt: Attempt, on reusable: HTTP1?) -> Start {
        if let reusable {
            busy.appendSlotted(reusable)
            return .http1(reusable)
        }
        // Over TLS with h2 on offer, a new connection negotiates as an HTTP/2 one, which hands
        // itself back to HTTP/1.1 when the server picks it.
        if negotiatesByALPN { return startHTTP2(attempt, fresh: true) }
        return mayOpen(attempt) ? .open(.http1) : .wait
    }

    /// Whether a new connection may be opened now; when not, the attempt joins the queue.
    private mutating func mayOpen(_ attempt: Attempt) -> Bool {
        guard tls, settingUp >= maxSettingUp else { return true }
        pending.append(attempt)
        return false
    }

    /// The last idle shared connection, taken off the list. One the peer closed is dropped:
    /// an idle connection that hears from its peer leaves the list (`removeIdle`) as it
    /// closes, so such an entry is closed already.
    private mutating func takeIdle() -> HTTP1? {
        while let candidate = idle.popLast() {
            if candidate.isStillOpen() { return candidate }
        }
        return nil
    }

    /// Whether the respondent of `device` holds a connection that can take its next attempt.
    private func canReuse(_ device: Device) -> Bool {
        device.http1?.isStillOpen() == true || device.http2?.hasCapacity == true
    }

    // MARK: The waiting attempts

    /// Begins a pass over the attempts waiting now; false when none wait or a pass is under way
    /// (a connection failing at once inside the pass ends its set-up there again: the pass
    /// already running goes on).
    mutating func beginPendingPass() -> Bool {
        guard pendingHead < pending.count, !passing else { return false }
        passing = true
        passEnd = pending.count
        return true
    }

    /// The next waiting attempt that may start, and what becomes of it; nil when the pass is
    /// over: each attempt waiting at its beginning is taken once, one that has to wait again
    /// goes to the back for a later pass; the pass stops at the first that finds neither a
    /// reusable connection nor room to set one up.
    mutating func nextPending() -> (Attempt, Decision)? {
        guard pendingHead < passEnd else { return nil }
        let next = pending[pendingHead]
        let reusable = next.device.map(canReuse) ?? (negotiated == .http1 ? !idle.isEmpty : h2Ready.contains { $0.hasCapacity })
        guard reusable || settingUp < maxSettingUp else { return nil }
        pendingHead += 1
        var closing: HTTP1?
        if let device = next.device, let start = startOnOwn(device, closing: &closing) {
            return (next, Decision(start: start, closing: closing))
        }
        if negotiated == .http1, next.device == nil, let connection = takeIdle() {
            busy.appendSlotted(connection)
            return (next, Decision(start: .http1(connection), closing: closing))
        }
        let start = restart(next, closing: &closing)
        return (next, Decision(start: start, closing: closing))
    }

    /// Ends the pass; the queue's storage is reused once every attempt in it has left.
    mutating func endPendingPass() {
        passing = false
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 1024)
            pendingHead = 0
        }
    }

    /// A sweep at `now`: the waiting attempts past their expiry leave the queue, to fail as a
    /// `timeout` that never left; the others keep their order.
    mutating func expirePending(now: UInt64, timeout: UInt64) -> [Attempt] {
        guard pendingHead < pending.count else { return [] }
        var kept: [Attempt] = []
        var expired: [Attempt] = []
        for attempt in pending[pendingHead...] {
            if now >= attempt.expiry(timeout: timeout) { expired.append(attempt) } else { kept.append(attempt) }
        }
        pending = kept
        pendingHead = 0
        return expired
    }

    /// Empties the queue, for the client's close: the attempts are to fail.
    mutating func removeAllPending() -> ArraySlice<Attempt> {
        let waiting = pending[pendingHead...]
        pending = []
        pendingHead = 0
        return waiting
    }

    // MARK: Set-ups

    mutating func countSettingUp() {
        settingUp += 1
        settingUpPeak = max(settingUpPeak, settingUp)
    }

    /// A TLS connection finished its set-up, well or not; the I/O then starts waiting attempts.
    mutating func setUpEnded() {
        settingUp -= 1
    }

    /// The latest handshake said what the server speaks now (ALPN): new connections speak it.
    /// A respondent's own connection stays its own (`start` tries it first, whatever the protocol).
    mutating func learned(_ wire: WireProtocol?) {
        negotiated = wire
    }
}
