import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// Figures for docs/tls.md, not tests of speed: run on demand, in release, alone, with
/// `SURVEY_BOT_TLS_MEASURE=1 swift test -c release -Xswiftc -enable-testing --filter TLSMeasurements`.
///
/// Handshakes over a socketpair cost both ends on one thread, so a client alone does about twice
/// the rate printed. The only expectations are that every handshake succeeds and that memory
/// does not grow with the number of connections made.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SURVEY_BOT_TLS_MEASURE"] == "1", "set SURVEY_BOT_TLS_MEASURE=1 to measure"))
struct TLSMeasurements {
    @Test func handshakesPerSecondAndMemory() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let server = try TLSServerContext(identity: identity)
        let client = try TLSFixtures.client(trusting: [identity])
        let ping = Array("ping".utf8)

        /// Full handshakes (both ends) per second, plus one small message each way.
        /// With `resume`, each connection resumes the session its predecessor saved.
        func run(_ count: Int, resume: Bool) throws -> Double {
            var saved: TLSResumption?
            let start = ContinuousClock.now
            for _ in 0..<count {
                let pair = try TLSPair(client: client, server: server, resuming: saved)
                try #require(pair.handshake() == (.done, .done))
                try #require(try pair.transfer(ping, from: pair.server, to: pair.client).get() == ping)
                try #require(saved == nil || pair.client.resumed)
                if resume { saved = pair.client.resumption() }
            }
            let elapsed = ContinuousClock.now - start
            return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }

        _ = try run(200, resume: false)
        let warm = residentBytes()
        var samples: [Int] = []
        var fullRate = 0.0
        for _ in 0..<5 {
            fullRate = max(fullRate, try run(2_000, resume: false))
            samples.append(residentBytes())
        }
        let resumedRate = try run(2_000, resume: true)
        print(String(format: "TLS 1.3 full handshakes, both ends on one thread: %.0f/s; resumed: %.0f/s", fullRate, resumedRate))
        print("RSS after warm-up \(warm / 1024) KB; after each 2000 handshakes: \(samples.map { "\($0 / 1024) KB" })")
        #expect(samples.last! - samples.first! < 4 << 20, "memory grows with connections made")

        // Every owner at once: certificates, contexts, sessions and saved sessions made and dropped.
        var churn: [Int] = []
        for _ in 0..<4 {
            for _ in 0..<250 {
                let made = try TLSIdentity.selfSigned(names: ["localhost", "127.0.0.1"])
                let madeServer = try TLSServerContext(identity: made, options: .init(trustedClientCertificates: [made.certificatePEM]))
                let madeClient = try TLSFixtures.client(trusting: [made])
                let pair = try TLSPair(client: madeClient, server: madeServer)
                try #require(pair.handshake().server.failure?.reason == "peer did not return a certificate")
                let good = try TLSPair(client: madeClient, server: try TLSServerContext(identity: made))
                try #require(good.handshake() == (.done, .done))
                try #require(try good.transfer(ping, from: good.server, to: good.client).get() == ping)
                _ = good.client.resumption()
            }
            churn.append(residentBytes())
        }
        print("RSS after each 250 rounds of certificate, contexts, sessions: \(churn.map { "\($0 / 1024) KB" })")
        #expect(churn.last! - churn.first! < 2 << 20, "memory grows with objects made")

        // Idle client sessions after a response, the server ends gone: what each one holds.
        let idleCount = 2_000
        var idle: [TLSPair] = []
        let before = residentBytes()
        for _ in 0..<idleCount {
            let pair = try TLSPair(client: client, server: server)
            try #require(pair.handshake() == (.done, .done))
            try #require(try pair.transfer(ping, from: pair.server, to: pair.client).get() == ping)
            idle.append(pair)
        }
        let after = residentBytes()
        print("RSS per idle pair (client + server session, socketpair, Swift objects): \((after - before) / idleCount) bytes")
        idle.removeAll()
    }

    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
