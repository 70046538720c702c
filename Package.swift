// swift-tools-version: 6.0
// survey-bot: a headless survey automation and load-test tool. No package dependencies:
// the Swift toolchain only, plus a tiny C shim over <sys/epoll.h> and one that loads the system's
// OpenSSL at run time (nothing links libssl: the binary starts without it, https needs it).
//
// survey-bot builds and runs on Linux only: its event loops use epoll. SwiftPM cannot name
// Linux in `platforms`, so none is claimed; CEpoll.h stops a build on any other system with
// a message that says so.
import PackageDescription

// An async call runs on its caller's executor instead of hopping at entry: on the event loops
// that saves a runtime executor check on every await of every request.
let engineSettings: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "survey-bot",
    products: [
        .executable(name: "survey-bot", targets: ["survey-bot"]),
        .library(name: "SurveyEngine", targets: ["SurveyEngine", "SurveyJourney", "SurveyMetrics", "SurveyWire"]),
    ],
    targets: [
        .target(name: "CEpoll"),
        // dlopen lives in libc from glibc 2.34 on, in libdl before.
        .target(name: "CTLS", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The wire: event loops, TLS, HTTP/1.1 and HTTP/2, clients and servers, the transport.
        // It knows nothing of journeys or respondents (ARCHITECTURE.md, "Modules").
        .target(name: "SurveyWire", dependencies: ["CEpoll", "CTLS"], swiftSettings: engineSettings),
        // What a respondent is asked to do: journeys and their steps, the survey API's contract,
        // questions, templates, think times, JSON. No I/O, no respondents.
        .target(name: "SurveyJourney", dependencies: ["SurveyWire"], swiftSettings: engineSettings),
        // What came of it: attempts, steps' figures, histograms, the timeline, respondents' endings.
        .target(name: "SurveyMetrics", dependencies: ["SurveyJourney", "SurveyWire"], swiftSettings: engineSettings),
        // The walk: respondents, retries, load models and the run that starts them.
        .target(
            name: "SurveyEngine", dependencies: ["SurveyMetrics", "SurveyJourney", "SurveyWire"], swiftSettings: engineSettings),
        .target(name: "SurveyBot", dependencies: ["SurveyEngine", "SurveyJourney", "SurveyMetrics", "SurveyWire"]),
        .executableTarget(name: "survey-bot", dependencies: ["SurveyBot"]),
        // The benchmark driver of bench/*.sh: the raw HTTP client at a fixed concurrency.
        .executableTarget(name: "survey-bench", dependencies: ["SurveyWire"]),
        // What both test targets use, once: temporary directories, polling, child processes, the
        // real TLS servers (openssl s_server, nginx) and the Python survey server they start. No
        // product depends on it.
        .target(
            name: "SurveyTestSupport", dependencies: ["SurveyEngine", "SurveyJourney", "SurveyMetrics", "SurveyWire"],
            path: "Tests/SurveyTestSupport"),
        // HTTP2/Fixtures: other HPACK implementations' header blocks, read by their path.
        .testTarget(
            name: "SurveyEngineTests",
            dependencies: ["SurveyEngine", "SurveyJourney", "SurveyMetrics", "SurveyWire", "SurveyTestSupport", "CTLS"],
            exclude: ["HTTP2/Fixtures"]),
        // `survey-bot` is a dependency so that building the tests, by any route, builds the
        // executable the end-to-end tests run from the same source; see `executablePath()`.
        .testTarget(
            name: "SurveyBotTests",
            dependencies: ["SurveyBot", "SurveyEngine", "SurveyJourney", "SurveyMetrics", "SurveyWire", "SurveyTestSupport", "survey-bot"],
            exclude: ["Report/Golden", "Recording/Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
