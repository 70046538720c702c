@testable import SurveyWire

/// An HTTP/1.1 connection as the pool's machine sees it, named for the tables.
final class FakeHTTP1: PoolHTTP1Connection {
    let name: String
    var slot = -1
    var open = true

    init(_ name: String, open: Bool = true) {
        self.name = name
        self.open = open
    }

    func isStillOpen() -> Bool { open }
}

/// An HTTP/2 connection as the pool's machine sees it: its room and state set by the test.
final class FakeHTTP2: PoolHTTP2Connection {
    let name: String
    var slot = -1
    var listedReady = false
    let owned: Bool
    var hasCapacity = true
    var isBusy = false
    var isClosed = false
    var isGoingAway = false

    init(_ name: String, owned: Bool = false, hasCapacity: Bool = true, isBusy: Bool = false) {
        self.name = name
        self.owned = owned
        self.hasCapacity = hasCapacity
        self.isBusy = isBusy
    }
}

/// A respondent holding its own connections.
final class FakeDevice: PoolDevice {
    var http1: FakeHTTP1?
    var http2: FakeHTTP2?
    var released = false

    init(http1: FakeHTTP1? = nil, http2: FakeHTTP2? = nil) {
        self.http1 = http1
        self.http2 = http2
    }
}

/// An attempt: a number, its respondent's device if any, and when it began.
struct FakeAttempt: PoolAttempt {
    let id: Int
    var device: FakeDevice?
    var started: UInt64 = 0

    init(_ id: Int, device: FakeDevice? = nil, started: UInt64 = 0) {
        self.id = id
        self.device = device
        self.started = started
    }

    func expiry(timeout: UInt64) -> UInt64 { started &+ timeout }
}

typealias PoolMachine = ConnectionPoolMachine<FakeAttempt>

/// A machine and the words the tables use for its actions and lists.
struct PoolScene {
    var machine: PoolMachine

    init(tls: Bool = false, version: HTTPVersion = .auto, sharing: ConnectionSharing = .shared, maxSettingUp: Int = 2) {
        machine = PoolMachine(tls: tls, version: version, sharing: sharing, maxSettingUp: maxSettingUp)
    }

    /// The machine's lists, one word each, in a fixed order; empty lists left out.
    var lists: String {
        var parts: [String] = []
        func add(_ label: String, _ names: [String]) {
            if !names.isEmpty { parts.append("\(label) \(names.joined(separator: ","))") }
        }
        add("idle", machine.idle.map(\.name))
        add("busy", machine.busy.map(\.name))
        add("ownedIdle", machine.ownedIdle.map(\.name))
        add("h2Busy", machine.h2Busy.map(\.name))
        add("h2Ready", machine.h2Ready.map(\.name))
        add("ownedHTTP2", machine.ownedHTTP2.values.map(\.name).sorted())
        add("pending", machine.waiting.map { String($0.id) })
        if machine.settingUp != 0 { parts.append("settingUp \(machine.settingUp)") }
        return parts.joined(separator: "; ")
    }

    static func describe(_ decision: PoolMachine.Decision) -> String {
        let start = describe(decision.start)
        guard let closing = decision.closing else { return start }
        return "close \(closing.name), \(start)"
    }

    static func describe(_ start: PoolMachine.Start) -> String {
        switch start {
        case .http1(let connection): "http1 \(connection.name)"
        case .http2(let connection): "http2 \(connection.name)"
        case .open(.http1): "open http1"
        case .open(.http2(let capacity)): capacity == .max ? "open http2 shared" : "open http2 \(capacity)"
        case .open(.ownHTTP2): "open own http2"
        case .wait: "wait"
        }
    }

    /// Puts shared idle connections in the idle list, in order.
    mutating func idle(_ connections: FakeHTTP1...) {
        for connection in connections { _ = machine.keepIdle(connection, for: nil) }
    }

    /// Lists HTTP/2 connections as ready, in order.
    mutating func ready(_ connections: FakeHTTP2...) {
        for connection in connections { machine.ready(connection) }
    }

    /// Counts `count` TLS set-ups under way, as opened connections do.
    mutating func settingUp(_ count: Int) {
        for index in 0..<count { _ = machine.opened(FakeHTTP2("setup\(index)"), for: nil) }
    }
}
