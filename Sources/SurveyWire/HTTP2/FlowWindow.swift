/// One flow-control window of RFC 9113 §6.9, a stream's or the connection's, in one direction.
///
/// A sending window is spent by DATA this end writes and granted by the peer's WINDOW_UPDATE; a
/// receiving window is consumed by DATA the peer writes and given back by this end's
/// WINDOW_UPDATE. No window may pass 2^31-1, and a peer that sends beyond one breaks the
/// protocol: both are FLOW_CONTROL_ERROR. A change of SETTINGS_INITIAL_WINDOW_SIZE moves the
/// window of every open stream by the difference (§6.9.2), which may leave one below zero.
struct FlowWindow: Sendable, Equatable {
    /// The largest window RFC 9113 allows: 2^31-1.
    static let maximum = 0x7FFF_FFFF

    /// Bytes that may still go through; below zero after a lowered initial window.
    private(set) var size: Int
    /// Bytes consumed and not yet given back (a receiving window's; a sending window keeps 0).
    private(set) var unreturned = 0

    init(_ size: Int) {
        self.size = size
    }

    /// Sends `count` bytes within the window: the caller sends no more than `size`.
    @inline(__always)
    mutating func spend(_ count: Int) {
        size -= count
    }

    /// Takes `count` bytes the peer sent on `stream` (0: the connection); more than the window
    /// holds is FLOW_CONTROL_ERROR.
    @inline(__always)
    mutating func consume(_ count: Int, stream: UInt32) throws(HTTP2Failure) {
        guard count <= size else {
            throw HTTP2Failure(
                .flowControlError, stream == 0 ? "the peer sent beyond the connection's window" : "stream \(stream) sent beyond its window")
        }
        size -= count
        unreturned += count
    }

    /// Adds the peer's WINDOW_UPDATE `increment`; past 2^31-1 is FLOW_CONTROL_ERROR and the
    /// window is left as it was.
    @inline(__always)
    mutating func grant(_ increment: Int, stream: UInt32) throws(HTTP2Failure) {
        guard size + increment <= Self.maximum else {
            throw HTTP2Failure(
                .flowControlError, stream == 0 ? "the connection's send window above 2^31-1" : "stream \(stream)'s send window above 2^31-1"
            )
        }
        size += increment
    }

    /// Moves the window by a change of the initial window size (§6.9.2): `delta` may be
    /// negative; past 2^31-1 is FLOW_CONTROL_ERROR.
    mutating func adjust(by delta: Int, stream: UInt32) throws(HTTP2Failure) {
        guard size + delta <= Self.maximum else {
            throw HTTP2Failure(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE took stream \(stream)'s window above 2^31-1")
        }
        size += delta
    }

    /// Gives back every byte consumed and not yet given back: the WINDOW_UPDATE increment, 0
    /// when there is none.
    @inline(__always)
    mutating func giveBack() -> Int {
        let increment = unreturned
        size += increment
        unreturned = 0
        return increment
    }

    /// Gives back what was consumed, by a WINDOW_UPDATE on `stream`, once it reaches `threshold`
    /// bytes: a window given back by halves costs one frame per half, not one per DATA.
    @inline(__always)
    mutating func giveBack(stream: UInt32, atLeast threshold: Int, into output: inout [UInt8]) {
        guard unreturned > 0, unreturned >= threshold else { return }
        HTTP2Frame.windowUpdate(stream: stream, increment: UInt32(giveBack())).write(into: &output)
    }
}
