import Foundation
import SurveyEngine
import SurveyJourney

extension RunReport {
    /// `{"index": i, "count": n}`: the i-th of n shards of a run (`--shard i/n`), from 1.
    struct ShardRecord: Codable, Sendable, Hashable, CustomStringConvertible {
        var index: Int
        var count: Int

        init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }

        init(_ shard: Shard) {
            self.init(index: shard.index, count: shard.count)
        }

        /// `i/n`, as on the command line.
        var description: String { "\(index)/\(count)" }

        private enum CodingKeys: String, CodingKey {
            case index, count
        }

        /// Reads the object, or the `"i/n"` string of reports before run ids.
        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                let parts = text.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
                    throw DecodingError.typeMismatch(
                        ShardRecord.self, DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected i/n"))
                }
                self.init(index: index, count: count)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(index: try container.decode(Int.self, forKey: .index), count: try container.decode(Int.self, forKey: .count))
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(count, forKey: .count)
        }

        /// The largest shard count `--shard` accepts.
        static let maxCount = 10_000

        /// Why the record cannot be a shard, or nil.
        var problem: String? {
            (1...Self.maxCount).contains(count) && (1...count).contains(index) ? nil : "'shard' is \(self), out of range"
        }
    }

    /// A run id as `--run-id` takes it: 1 to 128 letters, digits, `.`, `_`, `-` and `:` — a
    /// Kubernetes uid, a CI run number, a ULID or a UUID. Nil when acceptable, else why not.
    static func runIDProblem(_ id: String) -> String? {
        guard !id.isEmpty else { return "--run-id: give an id, like the CI's run number" }
        guard id.count <= 128 else { return "--run-id: at most 128 characters, found \(id.count)" }
        let allowed = id.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_:".unicodeScalars.contains($0))
        }
        guard allowed else { return "--run-id '\(id)': only letters, digits, '.', '_', '-' and ':' are allowed" }
        return nil
    }

    /// The seed of a run whose plan gives none: the first eight bytes of the SHA-256 of
    /// `survey-bot seed ` and the run id, big-endian, modulo 1,000,000. The shards of one run
    /// (one `--run-id`) so draw one seed, as one machine would, and a run id means the same seed
    /// in every version and on every machine. A generated run id is random, and so is its seed.
    static func seed(derivedFrom runID: String) -> UInt64 {
        let digest = SHA256.digest(of: Array("survey-bot seed \(runID)".utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value % 1_000_000
    }

    /// A new run id: a random UUID, lowercase.
    static func newRunID() -> String {
        UUID().uuidString.lowercased()
    }
}
