/// "Did you mean …?" for misspelt keys, options and words.
enum Suggestions {
    /// The candidate closest to `word` by edit distance, when it is close enough to be a typo:
    /// at most a third of the word's length (and at least 1) edits away.
    static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let target = Array(word.lowercased())
        var best: (String, Int)?
        for candidate in candidates {
            // The distance is at least the difference in length: a candidate that differs by
            // more than it could ever be allowed is not measured, so a 64 KiB word costs nothing.
            let lengthDifference = abs(target.count - candidate.count)
            guard lengthDifference <= max(1, min(target.count, candidate.count) / 3) else { continue }
            let distance = editDistance(target, Array(candidate.lowercased()))
            if best == nil || distance < best!.1 { best = (candidate, distance) }
        }
        guard let (candidate, distance) = best else { return nil }
        let allowed = max(1, min(target.count, candidate.count) / 3)
        return distance <= allowed ? candidate : nil
    }

    /// Damerau–Levenshtein distance (optimal string alignment): a swap of two neighbours counts 1.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
