import Foundation

/// The steps' names, from their paths: the last segment that names something (not a value
/// the import replaced, not a number or an id), without its extension — `/api/sessions/FS_12`
/// is `sessions`, `/index.php/246810` is `index`, `/` is `home` — each name once (`index_2`).
enum StepNames {
    static func make(_ requests: [RecordedRequest]) -> [String] {
        var taken: Set<String> = ["survey"]
        return requests.map { request in
            let name = unused(baseName(request), taken: taken)
            taken.insert(name)
            return name
        }
    }

    /// `base` when no name in `taken` is it, else the first of `base_2`, `base_3`, … that is free:
    /// how the import names steps, captures and environment variables alike.
    static func unused(_ base: String, taken: Set<String>) -> String {
        var name = base
        var number = 2
        while taken.contains(name) {
            name = "\(base)_\(number)"
            number += 1
        }
        return name
    }

    static func baseName(_ request: RecordedRequest) -> String {
        for (index, segment) in request.segments.enumerated().reversed() where !segment.isEmpty {
            let text = RecordedRequest.percentDecoded(segment)
            if request.replacements[.segment(index)]?.isEmpty == false { continue }
            if text.contains(where: \.isNumber) && (text.allSatisfy(\.isNumber) || RecordingImport.looksGenerated(text)) { continue }
            var word = text
            if let dot = word.lastIndex(of: "."), dot != word.startIndex, word[word.index(after: dot)...].allSatisfy(\.isLetter) {
                word = String(word[..<dot])
            }
            var name = String(word.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
            while name.contains("__") { name = name.replacingOccurrences(of: "__", with: "_") }
            name = String(name.drop { $0 == "_" || $0 == "-" })
            while name.hasSuffix("_") || name.hasSuffix("-") { name.removeLast() }
            guard !name.isEmpty else { continue }
            if name.first?.isLetter != true { name = "step_" + name }
            return String(name.prefix(40))
        }
        return request.method == "GET" ? "home" : request.method.lowercased()
    }
}
