/// A small, fast, seedable random number generator (Steele, Lea and Flood's SplitMix64).
///
/// Every random choice of a run — answers, question order, think time, jitter, injected
/// faults — draws from a `SplitMix64` derived from the run's seed, so that a seed repeats a run.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits of the stream; every bit pattern is equally likely.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The SplitMix64 finaliser: a bijective scramble of 64 bits, so distinct inputs give
    /// distinct outputs (the reference server's session tokens rely on it).
    @inlinable
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator for one member of a family (the i-th respondent, the n-th shard): streams of
    /// different members are independent, and each is repeatable from the seed.
    package static func derived(seed: UInt64, stream: UInt64) -> SplitMix64 {
        SplitMix64(seed: mix(seed ^ mix(stream &+ 0x632B_E59B_D9B4_E019)))
    }

    /// A uniform number in [0, 1) for the n-th event of a stream: the same (seed, stream, n)
    /// always gives the same number, without keeping any state.
    public static func unitValue(seed: UInt64, stream: UInt64, index: UInt64) -> Double {
        let bits = mix(mix(seed ^ mix(stream)) &+ index &* 0x9E37_79B9_7F4A_7C15)
        return Double(bits >> 11) * 0x1.0p-53
    }
}
