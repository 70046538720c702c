// swift-tools-version: 6.0
// survey-bot: a headless survey automation and load-test tool. No package dependencies:
// the Swift toolchain only, plus a tiny C shim over <sys/epoll.h>.
import PackageDescription

let package = Package(
    name: "survey-bot",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "survey-bot", targets: ["survey-bot"]),
        .library(name: "SurveyEngine", targets: ["SurveyEngine"]),
    ],
    targets: [
        .target(name: "CEpoll"),
        .target(
            name: "SurveyEngine", dependencies: ["CEpoll"],
            // An async call runs on its caller's executor instead of hopping at entry: on the
            // event loops that saves a runtime executor check on every await of every request.
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
        .target(name: "SurveyBot", dependencies: ["SurveyEngine"]),
        .executableTarget(name: "survey-bot", dependencies: ["SurveyBot"]),
        // The benchmark driver of bench/*.sh: the raw HTTP client at a fixed concurrency.
        .executableTarget(name: "survey-bench", dependencies: ["SurveyEngine"]),
        .testTarget(name: "SurveyEngineTests", dependencies: ["SurveyEngine"]),
        // `survey-bot` is a dependency so that building the tests, by any route, builds the
        // executable the end-to-end tests run from the same source; see `executablePath()`.
        .testTarget(name: "SurveyBotTests", dependencies: ["SurveyBot", "SurveyEngine", "survey-bot"], exclude: ["Report/Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
