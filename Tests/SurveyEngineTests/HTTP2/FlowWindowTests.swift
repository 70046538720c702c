import Testing

@testable import SurveyWire

/// One flow-control window's arithmetic (RFC 9113 §6.9): spent and granted when sending,
/// consumed and given back when receiving, never past 2^31-1, moved by a change of the initial
/// window even below zero.
@Suite struct FlowWindowTests {
    /// Throws `error`, the RFC's code, for `body`.
    func expectFailure(
        _ error: HTTP2Error, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(HTTP2Failure) -> Void
    ) {
        #expect(sourceLocation: sourceLocation, performing: { try body() }, throws: { ($0 as? HTTP2Failure)?.error == error })
    }

    @Test func spendingAndGrantingMoveTheWindow() throws {
        var window = FlowWindow(100)
        window.spend(40)
        #expect(window.size == 60)
        try window.grant(15, stream: 1)
        #expect(window.size == 75)
        #expect(window.unreturned == 0)
    }

    @Test func aGrantPastTwoToTheThirtyOneIsAFlowControlErrorAndChangesNothing() throws {
        var window = FlowWindow(FlowWindow.maximum - 5)
        try window.grant(5, stream: 0)
        #expect(window.size == 0x7FFF_FFFF)
        expectFailure(.flowControlError) { () throws(HTTP2Failure) in try window.grant(1, stream: 0) }
        #expect(window.size == 0x7FFF_FFFF)
        var spent = FlowWindow(65_535)
        spent.spend(65_535)
        try spent.grant(0x7FFF_FFFF, stream: 3)
        #expect(spent.size == 0x7FFF_FFFF)
    }

    @Test func takingMoreThanTheWindowIsAFlowControlError() throws {
        var window = FlowWindow(10)
        try window.consume(10, stream: 1)
        #expect(window.size == 0 && window.unreturned == 10)
        expectFailure(.flowControlError) { () throws(HTTP2Failure) in try window.consume(1, stream: 1) }
        #expect(window.size == 0 && window.unreturned == 10)
    }

    @Test func whatWasReadIsGivenBackOnceItReachesTheThreshold() throws {
        var window = FlowWindow(100)
        var output: [UInt8] = []
        try window.consume(40, stream: 3)
        window.giveBack(stream: 3, atLeast: 50, into: &output)
        #expect(output.isEmpty && window.size == 60)
        try window.consume(20, stream: 3)
        window.giveBack(stream: 3, atLeast: 50, into: &output)
        #expect(try HTTP2ServerMachineTests.frames(output) == [.windowUpdate(stream: 3, increment: 60)])
        #expect(window.size == 100 && window.unreturned == 0)
        #expect(window.giveBack() == 0)
    }

    @Test func aLoweredInitialWindowTakesTheWindowBelowZeroAndARaisedOneMayNotPassTheMaximum() throws {
        var window = FlowWindow(65_535)
        window.spend(65_535)
        try window.adjust(by: 100 - 65_535, stream: 1)
        #expect(window.size == 100 - 65_535)
        try window.grant(65_535, stream: 1)
        #expect(window.size == 100)
        try window.adjust(by: FlowWindow.maximum - 100, stream: 1)
        #expect(window.size == 0x7FFF_FFFF)
        expectFailure(.flowControlError) { () throws(HTTP2Failure) in try window.adjust(by: 1, stream: 1) }
    }
}
