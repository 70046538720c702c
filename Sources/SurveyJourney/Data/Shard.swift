/// The i-th of n equal slices of a run's load (`--shard i/n`): respondents (or arrivals) whose
/// number is i−1 modulo n. A respondent's random stream depends on its number only, so the n
/// shards together do exactly what one unsharded run does.
///
/// Only this meaning is called a shard. The per-event-loop partitions of the engine's own
/// state are lanes (`MetricsRecorder`, `Respondent.lane`).
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// The slice's number, from 1.
    public var index: Int
    /// How many slices the load is cut into.
    public var count: Int

    /// The `index`-th of `count` slices.
    ///
    /// - Precondition: `1 <= index <= count`.
    public init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index), "shard \(index)/\(count) out of range")
        self.index = index
        self.count = count
    }

    /// The whole load: `1/1`.
    public static let whole = Shard(index: 1, count: 1)

    /// `i/n`, as on the command line.
    public var description: String { "\(index)/\(count)" }

    /// Whether the respondent or arrival numbered `number` (from 0) falls in this slice.
    func contains(_ number: Int) -> Bool { number % count == index - 1 }

    /// This shard's part of a concurrency, so that the parts add up to the whole (each ≥ 1).
    package func share(of total: Int) -> Int {
        max(1, total / count + (index - 1 < total % count ? 1 : 0))
    }

    /// How many of `total` numbered items fall in this shard.
    public func count(of total: Int) -> Int {
        total <= index - 1 ? 0 : (total - index) / count + 1
    }
}
