import Testing

@testable import SurveyWire

/// Runs one pass over the waiting attempts as the pool does, opening what the machine asks
/// for (a TLS set-up each); returns each attempt's number and action, in order.
private func pass(_ scene: inout PoolScene) -> [String] {
    guard scene.machine.beginPendingPass() else { return [] }
    var taken: [String] = []
    while let (attempt, decision) = scene.machine.nextPending() {
        taken.append("\(attempt.id): \(PoolScene.describe(decision))")
        switch decision.start {
        case .open(.http1): _ = scene.machine.opened(FakeHTTP1("new\(attempt.id)"), for: attempt.device)
        case .open: _ = scene.machine.opened(FakeHTTP2("new\(attempt.id)"), for: attempt.device)
        default: break
        }
    }
    scene.machine.endPendingPass()
    return taken
}

/// The attempts waiting for a TLS set-up to end (`maxSettingUp`): when they start, in which
/// order, and when they expire.
@Suite struct ConnectionPoolMachinePendingTests {
    @Test func aSetUpEndingLetsTheOldestWaitingAttemptOpenOne() {
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 1)
        scene.settingUp(1)
        _ = scene.machine.start(FakeAttempt(1))
        _ = scene.machine.start(FakeAttempt(2))
        #expect(scene.lists == "pending 1,2; settingUp 1")
        #expect(pass(&scene).isEmpty, "no set-up ended, no idle connection: nobody starts")
        scene.machine.setUpEnded()
        #expect(pass(&scene) == ["1: open http1"])
        #expect(scene.lists == "busy new1; pending 2; settingUp 1")
    }

    @Test func anIdleConnectionTakesAWaitingAttemptWhateverTheSetUps() {
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 1)
        scene.settingUp(1)
        _ = scene.machine.start(FakeAttempt(1))
        _ = scene.machine.start(FakeAttempt(2))
        scene.idle(FakeHTTP1("a"))
        #expect(pass(&scene) == ["1: http1 a"])
        #expect(scene.lists == "busy a; pending 2; settingUp 1")
    }

    @Test func anAttemptThatMustWaitAgainGoesToTheBackAndIsTakenOncePerPass() {
        // It finds an idle connection listed, which turns out closed: it waits again, at the back.
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 1)
        scene.settingUp(1)
        _ = scene.machine.start(FakeAttempt(1))
        _ = scene.machine.start(FakeAttempt(2))
        scene.idle(FakeHTTP1("a", open: false))
        #expect(pass(&scene) == ["1: wait"])
        #expect(scene.lists == "pending 2,1; settingUp 1")
        // Within one pass, never round again, though another closed one is listed meanwhile.
        var single = PoolScene(tls: true, version: .http1, maxSettingUp: 1)
        single.settingUp(1)
        _ = single.machine.start(FakeAttempt(1))
        single.idle(FakeHTTP1("a", open: false))
        #expect(single.machine.beginPendingPass() == true)
        #expect(single.machine.nextPending().map { PoolScene.describe($0.1) } == "wait")
        single.idle(FakeHTTP1("b", open: false))
        #expect(single.machine.nextPending() == nil)
        single.machine.endPendingPass()
        #expect(single.lists == "idle b; pending 1; settingUp 1")
    }

    @Test func aPassStopsAtTheFirstAttemptThatCanNeitherReuseNorOpen() {
        var scene = PoolScene(tls: true, version: .http2, maxSettingUp: 1)
        scene.machine.learned(.h2)
        scene.settingUp(1)
        let device = FakeDevice(http2: FakeHTTP2("own", owned: true))
        device.http2?.hasCapacity = false
        _ = scene.machine.start(FakeAttempt(1, device: device))
        _ = scene.machine.start(FakeAttempt(2))
        #expect(scene.lists == "pending 1,2; settingUp 1")
        let x = FakeHTTP2("x")
        scene.ready(x)
        #expect(pass(&scene).isEmpty, "the first waits for its own connection's room, the second behind it")
        device.http2?.hasCapacity = true
        #expect(pass(&scene) == ["1: http2 own", "2: http2 x"])
        #expect(scene.lists == "h2Ready x; settingUp 1")
    }

    @Test func aRespondentsWaitingAttemptTakesItsOwnIdleConnection() {
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 1)
        scene.settingUp(1)
        let device = FakeDevice(http1: FakeHTTP1("own", open: false))
        #expect(PoolScene.describe(scene.machine.start(FakeAttempt(1, device: device))) == "close own, wait")
        #expect(scene.lists == "pending 1; settingUp 1")
        let next = FakeHTTP1("next")
        device.http1 = next
        scene.machine.ownedIdle.appendSlotted(next)
        #expect(pass(&scene) == ["1: http1 next"])
        #expect(scene.lists == "busy next; settingUp 1")
    }

    @Test func aPassUnderWayIsNotBegunAgainAndTheQueueEmptiesAfter() {
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 1)
        scene.settingUp(1)
        _ = scene.machine.start(FakeAttempt(1))
        scene.machine.setUpEnded()
        #expect(scene.machine.beginPendingPass() == true)
        #expect(scene.machine.beginPendingPass() == false, "a set-up ending inside the pass does not begin another")
        #expect(scene.machine.nextPending()?.0.id == 1)
        #expect(scene.machine.nextPending() == nil)
        scene.machine.endPendingPass()
        #expect(scene.machine.pending.isEmpty && scene.machine.pendingHead == 0)
        #expect(scene.machine.beginPendingPass() == false, "nothing waits")
    }

    @Test func aSweepEndsTheWaitingAttemptsPastTheirExpiryAndKeepsTheOthersInOrder() {
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 1)
        scene.settingUp(1)
        for (id, started) in [(1, 0), (2, 50), (3, 10), (4, 80)] { _ = scene.machine.start(FakeAttempt(id, started: UInt64(started))) }
        #expect(scene.machine.expirePending(now: 60, timeout: 50).map(\.id) == [1, 3])
        #expect(scene.lists == "pending 2,4; settingUp 1")
        #expect(scene.machine.needsSweep)
        #expect(scene.machine.expirePending(now: 200, timeout: 50).map(\.id) == [2, 4])
        #expect(!scene.machine.needsSweep)
    }

    @Test func closingTheClientEmptiesEveryList() {
        var scene = PoolScene(tls: true, version: .http1, maxSettingUp: 0)
        _ = scene.machine.start(FakeAttempt(9))
        scene.idle(FakeHTTP1("a"))
        _ = scene.machine.opened(FakeHTTP1("b"), for: nil)
        let device = FakeDevice()
        _ = scene.machine.opened(FakeHTTP2("own", owned: true), for: device)
        scene.machine.ownedIdle.appendSlotted(FakeHTTP1("mine"))
        scene.machine.enterBusy(FakeHTTP2("x"))
        scene.ready(FakeHTTP2("y"))
        #expect(scene.machine.removeAllIdle().map(\.name) == ["a"])
        scene.machine.removeAllBusy()
        scene.machine.removeAllHTTP2()
        let owned = scene.machine.removeAllOwned()
        #expect(owned.http1.map(\.name) == ["mine"] && owned.http2.map(\.name) == ["own"])
        #expect(scene.machine.removeAllPending().map(\.id) == [9])
        #expect(scene.lists == "settingUp 2")
    }
}
