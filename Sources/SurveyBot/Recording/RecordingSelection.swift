/// Which of a recording's requests are the survey's own: its documents, form posts and
/// XHR/fetch calls to the origin of the first document. The rest — static assets, other
/// origins, the browser's own noise — is left out, each with its reason, for the summary.
struct RecordingSelection: Sendable {
    /// Why a request was left out.
    enum Reason: String, Sendable, CaseIterable {
        case staticAsset = "static assets"
        case otherOrigin = "other origins"
        case favicon = "favicons"
        case preflight = "CORS preflights (OPTIONS)"
        case serviceWorker = "service-worker requests"
        case noResponse = "requests without a response"
    }

    /// `scheme://host[:port]` of the first document: the plan's target.
    var origin: String
    /// The survey's own requests, in the order recorded.
    var kept: [HAREntry]
    /// The rest, in the order recorded, each with its reason.
    var dropped: [(entry: HAREntry, reason: Reason)]

    /// Chrome's kinds of resource that are a page's assets.
    static let assetTypes: Set<String> = [
        "stylesheet", "script", "image", "font", "media", "manifest", "texttrack", "imageset", "object", "ping", "csp_violation_report",
    ]
    /// File extensions of assets, for recorders that say no kind (Firefox, mitmproxy).
    static let assetExtensions: Set<String> = [
        "css", "js", "mjs", "map", "png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "ico", "bmp", "woff", "woff2", "ttf", "otf",
        "eot", "mp4", "webm", "mp3", "ogg", "wav",
    ]

    /// Splits `file`'s entries; nil when it holds no request at all.
    init?(_ file: HARFile) {
        guard let first = Self.firstDocument(file.entries) else { return nil }
        origin = first.request.url.origin
        kept = []
        dropped = []
        for entry in file.entries {
            if let reason = reason(toDrop: entry) {
                dropped.append((entry, reason))
            } else {
                kept.append(entry)
            }
        }
    }

    /// The walk's first page: Chrome's first `document`, else the first GET answered with
    /// HTML, else the first request.
    static func firstDocument(_ entries: [HAREntry]) -> HAREntry? {
        entries.first { $0.resourceType == "document" }
            ?? entries.first { $0.request.method == "GET" && $0.response.content.mimeType.contains("html") }
            ?? entries.first
    }

    /// Why `entry` is no step of the survey's walk; nil when it is one.
    func reason(toDrop entry: HAREntry) -> Reason? {
        let request = entry.request
        if request.method == "OPTIONS" { return .preflight }
        if entry.viaServiceWorker || request.header("service-worker") != nil { return .serviceWorker }
        if request.url.origin != origin { return .otherOrigin }
        let file = request.url.path.split(separator: "/").last.map(String.init)?.lowercased() ?? ""
        if file == "favicon.ico" || file.hasPrefix("apple-touch-icon") { return .favicon }
        if entry.response.status == 0 { return .noResponse }
        if let type = entry.resourceType {
            if Self.assetTypes.contains(type) { return .staticAsset }
            if ["document", "xhr", "fetch"].contains(type) { return nil }
        }
        if let dot = file.lastIndex(of: "."), Self.assetExtensions.contains(String(file[file.index(after: dot)...])) {
            return .staticAsset
        }
        let mime = entry.response.content.mimeType
        if mime.hasPrefix("image/") || mime.hasPrefix("font/") || mime.hasPrefix("text/css") || mime.contains("javascript") {
            return .staticAsset
        }
        return nil
    }
}
