/// The SETTINGS one end of an HTTP/2 connection announced (RFC 9113 §6.5.2): the values this
/// end sent, or those the peer sent, each at RFC 9113's initial value until a SETTINGS frame
/// changes it.
struct HTTP2Settings: Sendable, Equatable {
    /// SETTINGS_HEADER_TABLE_SIZE: the HPACK table the announcing end's decoder keeps.
    var headerTableSize = 4096
    /// SETTINGS_ENABLE_PUSH.
    var enablePush = true
    /// SETTINGS_MAX_CONCURRENT_STREAMS: unlimited until announced.
    var maxConcurrentStreams = Int.max
    /// SETTINGS_INITIAL_WINDOW_SIZE: each new stream's window towards the announcing end.
    var initialWindowSize = 65_535
    /// SETTINGS_MAX_FRAME_SIZE: the largest frame payload the announcing end reads.
    var maxFrameSize = HTTP2Frame.defaultMaxFrameSize
    /// SETTINGS_MAX_HEADER_LIST_SIZE: unlimited until announced.
    var maxHeaderListSize = Int.max

    /// The value of one parameter, as a SETTINGS frame carries it (an unlimited one as 2^32-1).
    func value(of setting: HTTP2Setting) -> UInt32 {
        let value: Int
        switch setting {
        case .headerTableSize: value = headerTableSize
        case .enablePush: value = enablePush ? 1 : 0
        case .maxConcurrentStreams: value = maxConcurrentStreams
        case .initialWindowSize: value = initialWindowSize
        case .maxFrameSize: value = maxFrameSize
        case .maxHeaderListSize: value = maxHeaderListSize
        }
        return UInt32(clamping: value)
    }

    /// The parameters `announced`, with their values, for a SETTINGS frame.
    func values(_ announced: [HTTP2Setting]) -> [(HTTP2Setting, UInt32)] {
        announced.map { ($0, value(of: $0)) }
    }

    /// Takes the values of a SETTINGS frame, in order, each checked against what RFC 9113 allows
    /// it (`HTTP2Setting.check`: PROTOCOL_ERROR, or FLOW_CONTROL_ERROR for a window past 2^31-1).
    /// Returns how far SETTINGS_INITIAL_WINDOW_SIZE moved, which every open stream's window
    /// moves by (§6.9.2). On a throw nothing is taken.
    mutating func apply(_ values: [(HTTP2Setting, UInt32)]) throws(HTTP2Failure) -> Int {
        var next = self
        for (setting, value) in values {
            try setting.check(value)
            switch setting {
            case .headerTableSize: next.headerTableSize = Int(value)
            case .enablePush: next.enablePush = value == 1
            case .maxConcurrentStreams: next.maxConcurrentStreams = Int(value)
            case .initialWindowSize: next.initialWindowSize = Int(value)
            case .maxFrameSize: next.maxFrameSize = Int(value)
            case .maxHeaderListSize: next.maxHeaderListSize = Int(value)
            }
        }
        let delta = next.initialWindowSize - initialWindowSize
        self = next
        return delta
    }
}
