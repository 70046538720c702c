// swift-tools-version: 6.0
// survey-bot: a headless survey automation and load-test tool. No package dependencies:
// the Swift toolchain only, plus a tiny C shim over <sys/epoll.h> and one that loads the system's
// OpenSSL at run time (nothing links libssl: the binary starts without it, https needs it).
//
// survey-bot builds and runs on Linux only: its event loops use epoll. SwiftPM cannot name
// Linux in `platforms`, so none is claimed; CEpoll.h stops a build on any other system with
// a message that says so.
import PackageDescription

let package = Package(
    name: "survey-bot",
    products: [
        .executable(name: "survey-bot", targets: ["survey-bot"]),
        .library(name: "SurveyEngine", targets: ["SurveyEngine"]),
    ],
    targets: [
        .target(name: "CEpoll"),
        // dlopen lives in libc from glibc 2.34 on, in libdl before.
        .target(name: "CTLS", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "SurveyEngine", dependencies: ["CEpoll", "CTLS"],
            // An async call runs on its caller's executor instead of hopping at entry: on the
            // event loops that saves a runtime executor check on every await of every request.
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
        .target(name: "SurveyBot", dependencies: ["SurveyEngine"]),
        .executableTarget(name: "survey-bot", dependencies: ["SurveyBot"]),
        // The benchmark driver of bench/*.sh: the raw HTTP client at a fixed concurrency.
        .executableTarget(name: "survey-bench", dependencies: ["SurveyEngine"]),
        // What both test targets use, once: temporary directories, polling, child processes, the
        // real TLS servers (openssl s_server, nginx) and the Python survey server they start. No
        // product depends on it.
        .target(name: "SurveyTestSupport", dependencies: ["SurveyEngine"], path: "Tests/SurveyTestSupport"),
        // HTTP2/Fixtures: other HPACK implementations' header blocks, read by their path.
        .testTarget(name: "SurveyEngineTests", dependencies: ["SurveyEngine", "SurveyTestSupport"], exclude: ["HTTP2/Fixtures"]),
        // `survey-bot` is a dependency so that building the tests, by any route, builds the
        // executable the end-to-end tests run from the same source; see `executablePath()`.
        .testTarget(
            name: "SurveyBotTests", dependencies: ["SurveyBot", "SurveyEngine", "SurveyTestSupport", "survey-bot"],
            exclude: ["Report/Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
