import Foundation
import SurveyEngine
import SurveyJourney
import SurveyWire
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `survey-bot serve --http2` against HTTP/2 clients no one here wrote — curl (nghttp2 inside)
/// and h2load — in cleartext with prior knowledge and over TLS with ALPN `h2`, and the server's
/// own `/__stats` agreeing with what they sent.
@Suite(
    .enabled(
        if: Installed.curl != nil && Installed.h2load != nil,
        "curl or h2load is not installed: no independent HTTP/2 client (.ci/run installs curl and nghttp2-client)"))
struct HTTP2ServeConformanceTests {
    static let submit = #"{"id":1,"answer":"red"}"#

    /// `serve --http2` with `options` on a free port; over TLS (`--tls-self-signed`), the
    /// certificate it printed, written to `directory` for curl to trust.
    func start(tls: Bool, _ options: [String] = [], in directory: TemporaryDirectory) async throws -> (ChildProcess, String, String?) {
        let (server, url) = try await startServer(["--http2", "--questions", "4"] + (tls ? ["--tls-self-signed"] : []) + options)
        guard tls else { return (server, url, nil) }
        guard await server.waitForError("-----END CERTIFICATE-----") else {
            server.stop()
            throw PeerFailure(description: "no certificate printed: \(server.standardError)")
        }
        let error = server.standardError
        let start = try #require(error.range(of: "-----BEGIN CERTIFICATE-----"))
        let end = try #require(error.range(of: "-----END CERTIFICATE-----"))
        let path = try directory.write("server.pem", String(error[start.lowerBound..<end.upperBound]) + "\n")
        return (server, url, path)
    }

    /// Runs curl with `arguments`; its standard output.
    func curl(_ arguments: [String]) async throws -> String {
        let process = try ChildProcess(try #require(Installed.curl), ["--silent", "--show-error", "--max-time", "20"] + arguments)
        let status = await process.wait(seconds: 30)
        #expect(status == 0, "curl \(arguments): \(process.standardError)")
        return process.standardOutput
    }

    /// h2load's counts from its `requests: N total, N started, N done, N succeeded, …` line.
    func h2load(_ arguments: [String]) async throws -> [String: Int] {
        let process = try ChildProcess(try #require(Installed.h2load), arguments)
        let status = await process.wait(seconds: 60)
        #expect(status == 0, "h2load \(arguments): \(process.allOutput)")
        let line = try #require(process.standardOutput.split(separator: "\n").first { $0.hasPrefix("requests: ") }, "\(process.allOutput)")
        var counts: [String: Int] = [:]
        for part in line.dropFirst("requests: ".count).split(separator: ",") {
            let words = part.split(separator: " ")
            if words.count == 2, let number = Int(words[0]) { counts[String(words[1])] = number }
        }
        #expect(process.standardOutput.contains("Application protocol: h2"), "\(process.standardOutput)")
        return counts
    }

    @Test(arguments: [false, true])
    func curlSpeaksHTTP2ToServeAndTheServerCountsWhatItSent(tls: Bool) async throws {
        let directory = try TemporaryDirectory()
        let (server, url, certificate) = try await start(tls: tls, in: directory)
        defer { server.stop() }
        let version = tls ? ["--http2", "--cacert", certificate ?? ""] : ["--http2-prior-knowledge"]
        let format = ["--write-out", "\n%{http_version} %{http_code}\n"]

        let questions = try await curl(version + format + ["\(url)/questions"])
        let lines = questions.split(separator: "\n")
        #expect(lines.last == "2 200", "\(questions)")
        let list = try #require(lines.first.map { Array($0.utf8) })
        #expect(try SurveyQuestion.list(from: list).get().count == 4)

        // Two submits, one of them broken: 200 and 400. One curl each: Debian 12's curl 7.88.1
        // fails to reuse an h2c connection of prior knowledge for a second request, whatever the
        // server (nghttpd too: "Error in the HTTP2 framing layer").
        let json = ["--header", "content-type: application/json"]
        let accepted = try await curl(version + format + json + ["--data", Self.submit, "\(url)/question/submit"])
        #expect(accepted.split(separator: "\n") == ["2 200"], "\(accepted)")
        let refused = try await curl(version + format + json + ["--data", "not json", "\(url)/question/submit"])
        #expect(refused.split(separator: "\n") == ["2 400"], "\(refused)")

        // The same port still answers HTTP/1.1: by ALPN over TLS, by the request line in cleartext.
        let old = try await curl((tls ? ["--http1.1", "--cacert", certificate ?? ""] : ["--http1.1"]) + format + ["\(url)/nowhere"])
        #expect(old.split(separator: "\n").last == "1.1 404", "\(old)")

        let stats = try await fetchStats(url, tls: TLSConfiguration(trustedCertificates: try certificate.map { [try read($0)] } ?? []))
        #expect(stats.endpoints["questions"] == ["200": 1])
        #expect(stats.endpoints["submit"] == ["200": 1, "400": 1])
        #expect(stats.invalidSubmits == 1)
        #expect(stats.endpoints["other"] == ["404": 1])
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
    }

    @Test(arguments: [false, true])
    func h2loadsManyStreamsOnFewConnectionsAllSucceed(tls: Bool) async throws {
        let directory = try TemporaryDirectory()
        let (server, url, certificate) = try await start(tls: tls, in: directory)
        defer { server.stop() }
        let body = try directory.write("submit.json", Self.submit)

        let questions = try await h2load(["-n", "2000", "-c", "4", "-m", "16", "\(url)/questions"])
        #expect(questions["total"] == 2000)
        #expect(questions["started"] == 2000)
        #expect(questions["done"] == 2000)
        #expect(questions["succeeded"] == 2000, "\(questions)")
        let submits = try await h2load(
            ["-n", "600", "-c", "2", "-m", "8", "-d", body, "-H", "content-type: application/json", "\(url)/question/submit"])
        #expect(submits["succeeded"] == 600, "\(submits)")

        let stats = try await fetchStats(url, tls: TLSConfiguration(trustedCertificates: try certificate.map { [try read($0)] } ?? []))
        #expect(stats.endpoints["questions"] == ["200": 2000])
        #expect(stats.endpoints["submit"] == ["200": 600])
        #expect(stats.rejected == 0)
        // h2load's 6 connections and the one that asked for the stats.
        #expect(stats.connectionsAccepted == 7)
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
    }

    @Test func h2loadMeetsResetStreamsAndGoAwayWithoutLosingCount() async throws {
        let directory = try TemporaryDirectory()
        let (server, url, _) = try await start(tls: false, ["--reset-rate", "5%", "--goaway-rate", "2%", "--seed", "7"], in: directory)
        defer { server.stop() }
        let counts = try await h2load(["-n", "1000", "-c", "2", "-m", "4", "\(url)/questions"])
        let stats = try await fetchStats(url)
        let outcomes = try #require(stats.endpoints["questions"])
        // h2load does not send again what a GOAWAY left unprocessed: every request it counts as
        // done was answered, reset, or went unprocessed, and the server saw each.
        #expect(counts["succeeded"] == outcomes["200"], "\(counts) vs \(outcomes)")
        #expect((outcomes["reset"] ?? 0) > 0)
        #expect((outcomes["goaway"] ?? 0) > 0)
        #expect(Set(outcomes.keys).isSubset(of: ["200", "reset", "goaway", "closed"]), "\(outcomes)")
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
    }

    private func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }
}
