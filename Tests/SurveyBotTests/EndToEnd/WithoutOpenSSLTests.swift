import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The executable on a machine without OpenSSL, made real: in a private mount namespace every
/// libssl the loader could find is covered with /dev/null. Needs root, as CI has.
@Suite(.enabled(if: canMountPrivately)) struct WithoutOpenSSLTests {
    /// `survey-bot ARGUMENTS…` with libssl hidden; its stderr is in the tool's standard error.
    private func withoutOpenSSL(_ arguments: [String]) throws -> ChildProcess {
        let script = """
            for library in $(ldconfig -p | awk '/libssl\\.so\\.(3|1\\.1) / { print $NF }') /usr/lib/x86_64-linux-gnu/libssl.so.3; do
                [ -e "$library" ] && { mount --bind /dev/null "$library" || exit 99; }
            done
            exec "$@"
            """
        return try ChildProcess("/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", executablePath()] + arguments)
    }

    @Test func httpRunsAndHTTPSIsRefusedNamingTheLibrary() async throws {
        let directory = try TemporaryDirectory()
        let http = try directory.write("http.plan", "name: plain\nrespondents: 2\nanswers:\n  \"*\": yes\n")
        let https = try directory.write("https.plan", "name: secure\nrespondents: 2\nanswers:\n  \"*\": yes\nbuiltin:\n  tls: true\n")

        let plain = try withoutOpenSSL(["run", http, "--out", directory.path, "--quiet"])
        #expect(await plain.wait(seconds: 60) == 0, "the binary starts and runs http without libssl: \(plain.standardError)")

        let refused = try withoutOpenSSL(["run", https, "--out", directory.path, "--quiet"])
        #expect(await refused.wait(seconds: 60) == 2)
        #expect(
            refused.standardError.contains("https needs OpenSSL's libssl (tried libssl.so.3, libssl.so.1.1)"), "\(refused.standardError)")
        #expect(refused.standardError.contains("https.plan:6:8: error:"), "at builtin.tls: \(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/secure-latest.json"), "nothing was run")

        let validated = try withoutOpenSSL(["validate", https])
        #expect(await validated.wait(seconds: 60) == 2)
    }
}
