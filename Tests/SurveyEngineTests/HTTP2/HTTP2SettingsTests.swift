import Testing

@testable import SurveyWire

/// One end's SETTINGS (RFC 9113 §6.5.2): RFC 9113's initial values, a frame's values taken in
/// order, each checked against its bounds, and the change of the initial window reported.
@Suite struct HTTP2SettingsTests {
    @Test func theValuesStartAtTheRFCsAndGoOutAsAFrameCarriesThem() {
        let settings = HTTP2Settings()
        #expect(settings.headerTableSize == 4096 && settings.enablePush && settings.initialWindowSize == 65_535)
        #expect(settings.maxFrameSize == 16_384)
        #expect(settings.maxConcurrentStreams == Int.max && settings.maxHeaderListSize == Int.max)
        #expect(settings.values([.enablePush, .maxConcurrentStreams, .initialWindowSize]).map(\.1) == [1, UInt32.max, 65_535])
    }

    @Test func aFramesValuesAreTakenInOrderAndTheWindowsChangeIsReported() throws {
        var settings = HTTP2Settings()
        let delta = try settings.apply([
            (.initialWindowSize, 10), (.maxFrameSize, 20_000), (.maxConcurrentStreams, 5), (.enablePush, 0),
            (.initialWindowSize, 70_000), (.headerTableSize, 0), (.maxHeaderListSize, 1000),
        ])
        #expect(delta == 70_000 - 65_535)
        #expect(settings.initialWindowSize == 70_000 && settings.maxFrameSize == 20_000 && settings.maxConcurrentStreams == 5)
        #expect(!settings.enablePush && settings.headerTableSize == 0 && settings.maxHeaderListSize == 1000)
        #expect(try settings.apply([(.initialWindowSize, 0)]) == -70_000)
        #expect(try settings.apply([(.maxFrameSize, 16_384)]) == 0)
    }

    @Test(arguments: [
        (HTTP2Setting.enablePush, UInt32(2), HTTP2Error.protocolError), (.initialWindowSize, 0x8000_0000, .flowControlError),
        (.maxFrameSize, 16_383, .protocolError), (.maxFrameSize, 16_777_216, .protocolError),
    ])
    func aValueOutOfBoundsIsTheRFCsErrorAndNothingIsTaken(_ setting: HTTP2Setting, _ value: UInt32, _ error: HTTP2Error) {
        var settings = HTTP2Settings()
        #expect(
            performing: { _ = try settings.apply([(.maxConcurrentStreams, 7), (setting, value)]) },
            throws: { ($0 as? HTTP2Failure)?.error == error })
        #expect(settings == HTTP2Settings())
    }

    @Test func theEdgesOfTheBoundsAreAllowed() throws {
        var settings = HTTP2Settings()
        _ = try settings.apply([(.initialWindowSize, 0x7FFF_FFFF), (.maxFrameSize, 16_777_215), (.enablePush, 1)])
        #expect(settings.initialWindowSize == 0x7FFF_FFFF && settings.maxFrameSize == 16_777_215)
    }
}
