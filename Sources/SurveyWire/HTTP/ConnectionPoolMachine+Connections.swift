/// The machine's events from connections: opened, idle, busy or not, ready or not, adopted,
/// closed; a respondent leaving; the client closing.
extension ConnectionPoolMachine {
    // MARK: New connections

    /// The I/O opened the HTTP/1.1 connection `start` asked for (`.open(.http1)`): it is busy,
    /// counted among the set-ups over TLS, and the respondent's own when the attempt has a
    /// device. Returns the one that respondent held idle before, to close: it could be reached
    /// no more.
    mutating func opened(_ connection: HTTP1, for device: Device?) -> HTTP1? {
        if tls { countSettingUp() }
        let replaced = device.flatMap { own(connection, for: $0) }
        busy.appendSlotted(connection)
        return replaced
    }

    /// The I/O opened the HTTP/2 connection `start` asked for: counted among the set-ups over
    /// TLS; a respondent's own (`.ownHTTP2`, `device` given) is listed apart until it closes.
    /// Returns the one that respondent held before, to close, when it is open and carries
    /// nothing; one going away closes itself once it has carried its last. The I/O then sends
    /// the attempt, and lists the connection as `ready` when it has room for more.
    mutating func opened(_ connection: HTTP2, for device: Device?) -> HTTP2? {
        if tls { countSettingUp() }
        guard let device else { return nil }
        let old = device.http2
        device.http2 = connection
        ownedHTTP2[ObjectIdentifier(connection)] = connection
        guard let old, old !== connection, !old.isBusy, !old.isClosed, !old.isGoingAway else { return nil }
        return old
    }

    /// An HTTP/1.1 connection took over the socket of an HTTP/2 one whose handshake agreed on
    /// http/1.1, with its first attempt: it is busy, and the respondent's own when the attempt
    /// has a device (whose HTTP/2 connection, closed by the hand-over, is forgotten). Returns
    /// the one that respondent held idle before, to close.
    mutating func adopted(_ connection: HTTP1, for device: Device?) -> HTTP1? {
        var replaced: HTTP1?
        if let device {
            if let old = device.http2, old.isClosed {
                ownedHTTP2.removeValue(forKey: ObjectIdentifier(old))
                device.http2 = nil
            }
            replaced = own(connection, for: device)
        }
        busy.appendSlotted(connection)
        return replaced
    }

    /// Makes `connection` the HTTP/1.1 connection of `device`; returns the one it held when that
    /// one was idle, taken off the list.
    private mutating func own(_ connection: HTTP1, for device: Device) -> HTTP1? {
        let old = device.http1
        device.http1 = connection
        guard let old, old !== connection, ownedIdle.removeSlotted(old) else { return nil }
        return old
    }

    // MARK: HTTP/1.1 connections

    /// An HTTP/1.1 connection ended its attempt and may carry another: it waits for its
    /// respondent's next (`device`), or for anyone's. False when it is to close instead: its
    /// respondent has left.
    mutating func keepIdle(_ connection: HTTP1, for device: Device?) -> Bool {
        guard let device else {
            idle.append(connection)
            return true
        }
        guard !device.released else { return false }
        ownedIdle.appendSlotted(connection)
        return true
    }

    /// An HTTP/1.1 connection ended its attempt (it goes idle or closes next).
    mutating func leaveBusy(_ connection: HTTP1) {
        busy.removeSlotted(connection)
    }

    /// An idle HTTP/1.1 connection is closing: its peer closed it or spoke out of turn.
    mutating func removeIdle(_ connection: HTTP1) {
        if ownedIdle.removeSlotted(connection) { return }
        if let index = idle.lastIndex(where: { $0 === connection }) { idle.remove(at: index) }
    }

    // MARK: HTTP/2 connections

    /// An HTTP/2 connection took its first attempt since it last carried none.
    mutating func enterBusy(_ connection: HTTP2) {
        h2Busy.appendSlotted(connection)
    }

    /// An HTTP/2 connection carries nothing more.
    mutating func leaveBusy(_ connection: HTTP2) {
        h2Busy.removeSlotted(connection)
    }

    /// An HTTP/2 connection can take another attempt: listed once, the last one first; never a
    /// respondent's own.
    mutating func ready(_ connection: HTTP2) {
        guard !connection.listedReady, !connection.owned else { return }
        connection.listedReady = true
        h2Ready.append(connection)
    }

    /// An HTTP/2 connection can take no more (gone away, failed, handed over, full).
    mutating func noLongerReady(_ connection: HTTP2) {
        guard connection.listedReady else { return }
        connection.listedReady = false
        if let index = h2Ready.lastIndex(where: { $0 === connection }) { h2Ready.remove(at: index) }
    }

    /// The I/O sent an attempt on `connection` (`.http2`): listed no more when it is now full.
    mutating func tookStream(_ connection: HTTP2) {
        if !connection.hasCapacity { noLongerReady(connection) }
    }

    /// A respondent's own HTTP/2 connection closed.
    mutating func ownedClosed(_ connection: HTTP2) {
        ownedHTTP2.removeValue(forKey: ObjectIdentifier(connection))
    }

    /// HTTP/2 connections open: busy, ready, or a respondent's own idle.
    var openHTTP2Count: Int {
        let ready = h2Ready.filter { !$0.isClosed && !$0.isBusy }.count
        return h2Busy.count + ready + ownedHTTP2.values.filter { !$0.isClosed && !$0.isBusy }.count
    }

    // MARK: Leaving

    /// The respondent of `device` has left: it holds its connections no more. Returns those to
    /// close: its HTTP/1.1 one when idle, its HTTP/2 one when it carries nothing (one still
    /// carrying an attempt — none should — closes when the client does).
    mutating func release(_ device: Device) -> (http1: HTTP1?, http2: HTTP2?) {
        device.released = true
        let http1 = device.http1.flatMap { ownedIdle.removeSlotted($0) ? $0 : nil }
        let http2 = device.http2.flatMap { $0.isBusy ? nil : $0 }
        device.http1 = nil
        device.http2 = nil
        return (http1, http2)
    }

    /// Forgets the shared idle HTTP/1.1 connections, for the client's close.
    mutating func removeAllIdle() -> [HTTP1] {
        defer { idle.removeAll() }
        return idle
    }

    /// Forgets the busy HTTP/1.1 connections, for the client's close (after their attempts failed).
    mutating func removeAllBusy() {
        busy.removeAll()
    }

    /// Forgets the loop's HTTP/2 connections, busy or ready, for the client's close.
    mutating func removeAllHTTP2() {
        h2Busy.removeAll()
        h2Ready.removeAll()
    }

    /// Forgets respondents' own connections, for the client's close; returns them to close.
    mutating func removeAllOwned() -> (http1: [HTTP1], http2: [HTTP2]) {
        defer {
            ownedIdle.removeAll()
            ownedHTTP2.removeAll()
        }
        return (ownedIdle, Array(ownedHTTP2.values))
    }
}
