import Testing

@testable import SurveyWire

/// Starts `attempt` and checks what the machine decides and the lists it leaves.
private func expectStart(
    _ scene: inout PoolScene, _ attempt: FakeAttempt, _ action: String, lists: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let decision = scene.machine.start(attempt)
    #expect(PoolScene.describe(decision) == action, sourceLocation: sourceLocation)
    #expect(scene.lists == lists, sourceLocation: sourceLocation)
}

/// The pool's machine alone, attempt by attempt: each event, the action it returns and the lists
/// it leaves, with plain connections and no I/O.
@Suite struct ConnectionPoolMachineTests {
    @Test func theProtocolIsKnownFromTheStartExceptWhenTLSOffersH2() {
        let expected: [(Bool, HTTPVersion, WireProtocol?)] = [
            (false, .auto, .http1), (false, .http1, .http1), (false, .http2, .h2c),
            (true, .auto, nil), (true, .http1, .http1), (true, .http2, nil),
        ]
        for (tls, version, negotiated) in expected {
            let scene = PoolScene(tls: tls, version: version)
            #expect(scene.machine.negotiated == negotiated, "tls \(tls), \(version)")
            #expect(scene.machine.negotiatesByALPN == (tls && version != .http1))
        }
    }

    @Test func anAttemptTakesTheLastIdleConnection() {
        var scene = PoolScene()
        let (a, b) = (FakeHTTP1("a"), FakeHTTP1("b"))
        scene.idle(a, b)
        expectStart(&scene, FakeAttempt(1), "http1 b", lists: "idle a; busy b")
        expectStart(&scene, FakeAttempt(2), "http1 a", lists: "busy b,a")
        expectStart(&scene, FakeAttempt(3), "open http1", lists: "busy b,a")
    }

    @Test func theShortcutTakesTheLastOpenIdleConnectionOverHTTP1Only() {
        var scene = PoolScene()
        let (a, b, c) = (FakeHTTP1("a"), FakeHTTP1("b"), FakeHTTP1("c", open: false))
        scene.idle(a, b, c)
        #expect(scene.machine.startOnIdle() === b)
        #expect(scene.lists == "idle a; busy b")
        #expect(scene.machine.startOnIdle() === a)
        #expect(scene.machine.startOnIdle() == nil)
        #expect(scene.lists == "busy b,a")
        // Where the protocol is not known to be HTTP/1.1, `start` decides.
        var tls = PoolScene(tls: true, version: .auto)
        tls.idle(FakeHTTP1("d"))
        #expect(tls.machine.startOnIdle() == nil)
        #expect(tls.lists == "idle d")
    }

    @Test func anIdleConnectionThePeerClosedIsPassedOver() {
        var scene = PoolScene()
        let (a, b) = (FakeHTTP1("a"), FakeHTTP1("b", open: false))
        scene.idle(a, b)
        expectStart(&scene, FakeAttempt(1), "http1 a", lists: "busy a")
    }

    @Test func aNewConnectionIsBusyAndCountedAmongSetUpsOverTLSOnly() {
        var plain = PoolScene()
        #expect(plain.machine.opened(FakeHTTP1("c"), for: nil) == nil)
        #expect(plain.lists == "busy c")
        var tls = PoolScene(tls: true, version: .http1)
        expectStart(&tls, FakeAttempt(1), "open http1", lists: "")
        #expect(tls.machine.opened(FakeHTTP1("c"), for: nil) == nil)
        #expect(tls.lists == "busy c; settingUp 1")
        #expect(tls.machine.settingUpPeak == 1)
        tls.machine.setUpEnded()
        #expect(tls.lists == "busy c")
        #expect(tls.machine.settingUpPeak == 1)
    }

    @Test func beyondMaxSettingUpAnAttemptWaits() {
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 2)
        scene.settingUp(2)
        expectStart(&scene, FakeAttempt(1), "wait", lists: "pending 1; settingUp 2")
        // An idle kept-alive connection takes an attempt whatever the set-ups.
        scene.idle(FakeHTTP1("a"))
        expectStart(&scene, FakeAttempt(2), "http1 a", lists: "busy a; pending 1; settingUp 2")
        // Plain http is never throttled.
        var plain = PoolScene(tls: false, maxSettingUp: 0)
        expectStart(&plain, FakeAttempt(1), "open http1", lists: "")
    }

    @Test func overTLSWithH2OnOfferANewConnectionNegotiatesAsHTTP2() {
        var auto = PoolScene(tls: true, version: .auto)
        expectStart(&auto, FakeAttempt(1), "open http2 shared", lists: "")
        var perRequest = PoolScene(tls: true, version: .auto, sharing: .perRequest)
        expectStart(&perRequest, FakeAttempt(1), "open http2 1", lists: "")
        // Once the loop learned http/1.1, an idle one is taken; a new one still offers h2.
        auto.machine.learned(.http1)
        auto.idle(FakeHTTP1("a"))
        expectStart(&auto, FakeAttempt(2), "http1 a", lists: "busy a")
        expectStart(&auto, FakeAttempt(3), "open http2 shared", lists: "busy a")
    }

    @Test func anHTTP2AttemptTakesTheLastReadyConnectionWithRoom() {
        var scene = PoolScene(version: .http2)
        let (x, y, z) = (FakeHTTP2("x"), FakeHTTP2("y"), FakeHTTP2("z"))
        scene.ready(x, y, z)
        z.hasCapacity = false  // the server's SETTINGS shrank its room
        expectStart(&scene, FakeAttempt(1), "http2 y", lists: "h2Ready x,y")
        #expect(!z.listedReady)
        scene.machine.tookStream(y)
        #expect(scene.lists == "h2Ready x,y", "y still has room")
        y.hasCapacity = false
        scene.machine.tookStream(y)
        #expect(scene.lists == "h2Ready x")
        x.hasCapacity = false
        expectStart(&scene, FakeAttempt(2), "open http2 shared", lists: "")
    }

    @Test func aReadyConnectionIsListedOnceAndNeverARespondentsOwn() {
        var scene = PoolScene(version: .http2)
        let (x, own) = (FakeHTTP2("x"), FakeHTTP2("own", owned: true))
        scene.ready(x, x, own)
        #expect(scene.lists == "h2Ready x")
        scene.machine.noLongerReady(x)
        scene.machine.noLongerReady(x)
        #expect(scene.lists == "")
        #expect(!x.listedReady)
    }

    @Test func http2ConnectionsEnterAndLeaveTheBusyList() {
        var scene = PoolScene(version: .http2)
        let (x, y) = (FakeHTTP2("x"), FakeHTTP2("y"))
        scene.machine.enterBusy(x)
        scene.machine.enterBusy(y)
        #expect(scene.lists == "h2Busy x,y")
        #expect(scene.machine.needsSweep)
        scene.machine.leaveBusy(x)
        #expect(scene.lists == "h2Busy y")
        scene.machine.leaveBusy(x)
        #expect(scene.lists == "h2Busy y")
    }

    @Test func aRespondentsAttemptGoesOutOnItsOwnConnection() {
        var scene = PoolScene()
        let own = FakeHTTP1("own")
        let device = FakeDevice()
        #expect(scene.machine.opened(own, for: device) == nil)
        scene.machine.leaveBusy(own)
        #expect(scene.machine.keepIdle(own, for: device) == true)
        #expect(scene.lists == "ownedIdle own")
        // A shared attempt never takes it.
        expectStart(&scene, FakeAttempt(1), "open http1", lists: "ownedIdle own")
        expectStart(&scene, FakeAttempt(2, device: device), "http1 own", lists: "busy own")
        #expect(device.http1 === own)
    }

    @Test(arguments: [WireProtocol.http1, .h2])
    func aRespondentKeepsItsOwnConnectionWhenTheLoopLearnsTheOtherProtocol(learned: WireProtocol) {
        var scene = PoolScene(tls: true, version: .auto)
        let device = FakeDevice()
        if learned == .h2 {
            device.http1 = FakeHTTP1("own")
            scene.machine.ownedIdle.appendSlotted(device.http1!)
        } else {
            device.http2 = FakeHTTP2("own", owned: true)
        }
        scene.machine.learned(learned)
        let action = learned == .h2 ? "http1 own" : "http2 own"
        expectStart(&scene, FakeAttempt(1, device: device), action, lists: learned == .h2 ? "busy own" : "")
    }

    @Test func anOwnConnectionThatCannotCarryIsLetGoAndANewOneOpened() {
        var scene = PoolScene(tls: true, version: .auto)
        scene.machine.learned(.http1)
        let stale = FakeHTTP1("stale", open: false)
        let full = FakeHTTP2("full", owned: true, hasCapacity: false)
        let device = FakeDevice(http1: stale, http2: full)
        expectStart(&scene, FakeAttempt(1, device: device), "close stale, open own http2", lists: "")
        #expect(device.http1 == nil && device.http2 === full)
        // A new own HTTP/2 connection replaces the old one, closed when it carries nothing.
        let fresh = FakeHTTP2("fresh", owned: true)
        #expect(scene.machine.opened(fresh, for: device) === full)
        #expect(device.http2 === fresh)
        #expect(scene.lists == "ownedHTTP2 fresh; settingUp 1")
        for (busy, closed, goingAway) in [(true, false, false), (false, true, false), (false, false, true)] {
            let old = FakeHTTP2("old", owned: true, isBusy: busy)
            old.isClosed = closed
            old.isGoingAway = goingAway
            device.http2 = old
            #expect(scene.machine.opened(FakeHTTP2("new", owned: true), for: device) == nil, "busy \(busy), closed \(closed)")
        }
    }

    @Test func aRespondentsNewHTTP1ConnectionReplacesItsIdleOne() {
        var scene = PoolScene()
        let (old, new) = (FakeHTTP1("old"), FakeHTTP1("new"))
        let device = FakeDevice()
        _ = scene.machine.opened(old, for: device)
        scene.machine.leaveBusy(old)
        _ = scene.machine.keepIdle(old, for: device)
        #expect(scene.machine.opened(new, for: device) === old)
        #expect(scene.lists == "busy new")
        #expect(device.http1 === new)
        // One busy or closed is not idle: not closed by the machine.
        #expect(scene.machine.opened(FakeHTTP1("third"), for: device) == nil)
    }

    @Test func aRespondentWithoutAConnectionOpensOneOfTheLoopsProtocol() {
        var plain = PoolScene()
        expectStart(&plain, FakeAttempt(1, device: FakeDevice()), "open http1", lists: "")
        var h2c = PoolScene(version: .http2)
        h2c.ready(FakeHTTP2("x"))
        expectStart(&h2c, FakeAttempt(1, device: FakeDevice()), "open own http2", lists: "h2Ready x")
        var throttled = PoolScene(tls: true, version: .http2, maxSettingUp: 1)
        throttled.settingUp(1)
        expectStart(&throttled, FakeAttempt(7, device: FakeDevice()), "wait", lists: "pending 7; settingUp 1")
    }

    @Test func anIdleConnectionIsKeptForItsRespondentOrAnyoneUnlessItsRespondentLeft() {
        var scene = PoolScene()
        let (a, b, c) = (FakeHTTP1("a"), FakeHTTP1("b"), FakeHTTP1("c"))
        let device = FakeDevice()
        #expect(scene.machine.keepIdle(a, for: nil) == true)
        #expect(scene.machine.keepIdle(b, for: device) == true)
        device.released = true
        #expect(scene.machine.keepIdle(c, for: device) == false)
        #expect(scene.lists == "idle a; ownedIdle b")
        scene.machine.removeIdle(b)
        scene.machine.removeIdle(a)
        scene.machine.removeIdle(c)
        #expect(scene.lists == "")
    }

    @Test func aBusyConnectionLeavesTheBusyListWherevertItSits() {
        var scene = PoolScene()
        let connections = ["a", "b", "c"].map { FakeHTTP1($0) }
        for connection in connections { _ = scene.machine.opened(connection, for: nil) }
        scene.machine.leaveBusy(connections[0])
        #expect(scene.lists == "busy c,b")
        scene.machine.leaveBusy(connections[0])
        #expect(scene.lists == "busy c,b")
        #expect(connections[0].slot == -1)
    }

    @Test func anAdoptedConnectionIsBusyAndTakesTheRespondentsPlace() {
        var scene = PoolScene(tls: true, version: .auto)
        let handing = FakeHTTP2("handing", owned: true)
        let device = FakeDevice(http2: handing)
        _ = scene.machine.opened(handing, for: device)
        scene.machine.setUpEnded()
        handing.isClosed = true
        let adopted = FakeHTTP1("adopted")
        #expect(scene.machine.adopted(adopted, for: device) == nil)
        #expect(scene.lists == "busy adopted")
        #expect(device.http1 === adopted && device.http2 == nil)
        // A shared one is simply busy, and not counted as a set-up: its handshake is done.
        #expect(scene.machine.adopted(FakeHTTP1("shared"), for: nil) == nil)
        #expect(scene.lists == "busy adopted,shared")
    }

    @Test func aRespondentLeavingLetsGoOfItsConnectionsClosingThoseIdle() {
        var scene = PoolScene()
        let (h1, h2) = (FakeHTTP1("h1"), FakeHTTP2("h2", owned: true))
        let device = FakeDevice(http1: h1, http2: h2)
        scene.machine.ownedIdle.appendSlotted(h1)
        let closing = scene.machine.release(device)
        #expect(closing.http1 === h1 && closing.http2 === h2)
        #expect(device.released && device.http1 == nil && device.http2 == nil)
        #expect(scene.lists == "")
        let busy = FakeDevice(http1: FakeHTTP1("busy"), http2: FakeHTTP2("carrying", owned: true, isBusy: true))
        let none = scene.machine.release(busy)
        #expect(none.http1 == nil && none.http2 == nil)
    }

    @Test func openHTTP2ConnectionsCountBusyReadyAndOwnedIdleOnce() {
        var scene = PoolScene(version: .http2)
        let (busyReady, idleReady, closedReady) = (FakeHTTP2("a", isBusy: true), FakeHTTP2("b"), FakeHTTP2("c"))
        closedReady.isClosed = true
        scene.machine.enterBusy(busyReady)
        scene.ready(busyReady, idleReady, closedReady)
        _ = scene.machine.opened(FakeHTTP2("own", owned: true), for: FakeDevice())
        #expect(scene.machine.openHTTP2Count == 3)
        scene.machine.ownedClosed(scene.machine.ownedHTTP2.values.first!)
        #expect(scene.machine.openHTTP2Count == 2)
    }
}
