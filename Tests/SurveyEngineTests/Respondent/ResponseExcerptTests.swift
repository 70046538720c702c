import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// The server's reason as reports quote it: JSON compacted, HTML reduced to its text, text on
/// one line, cut between characters, control characters spelt out, secrets masked.
@Suite struct ResponseExcerptTests {
    private func excerpt(_ text: String, bodyBytes: Int? = nil, secrets: [String] = []) -> String? {
        ResponseExcerpt.of(Array(text.utf8), bodyBytes: bodyBytes, secrets: SecretValues(secrets))
    }

    @Test func jsonIsCompactedToOneLine() {
        let body = """
            {
              "meta": {
                "error": { "errorMessage": "Invalid or missing X-API-TOKEN" }
              }
            }
            """
        #expect(excerpt(body) == #"{"meta":{"error":{"errorMessage":"Invalid or missing X-API-TOKEN"}}}"#)
        #expect(excerpt(#"  "Unauthorized"  "#) == #""Unauthorized""#)
        #expect(excerpt(#"{"why": "line\nbreak"}"#) == #"{"why":"line\nbreak"}"#)
    }

    @Test func htmlIsItsTitleThenWhatItsBodyAddsWithoutTagsScriptsOrComments() {
        let nginx = """
            <html>
            <head><title>502 Bad Gateway</title></head>
            <body>
            <center><h1>502 Bad Gateway</h1></center>
            <hr><center>nginx</center>
            </body>
            </html>
            """
        #expect(excerpt(nginx) == "502 Bad Gateway — nginx")
        let page = """
            <!DOCTYPE html><HTML><HEAD><TITLE>Error &amp; more</TITLE><STYLE>p { color: red }</STYLE>
            <script type="text/javascript">var token = "x";</script></HEAD>
            <body><!-- a comment --><p>The&nbsp;survey is <b>closed</b>.</p><p>Try &lt;later&gt;</p></body></HTML>
            """
        #expect(excerpt(page) == "Error & more — The survey is closed . Try <later>")
        #expect(excerpt("<p>no title</p>") == "no title")
    }

    @Test func anythingElseIsTextWithItsWhiteSpaceRunsAsOneSpace() {
        #expect(excerpt("Service\r\n  Unavailable\t\tnow\n") == "Service Unavailable now")
        #expect(excerpt(" \r\n\t") == nil)
        #expect(excerpt("") == nil)
    }

    @Test func controlAndInvisibleCharactersAreSpeltNotSent() {
        #expect(excerpt("red\u{1B}[31m alert\u{7}") == "red\\u{1B}[31m alert\\u{07}")
        #expect(excerpt("a\u{202E}b\u{200B}c\0") == "a\\u{202E}b\\u{200B}c\\0")
    }

    @Test func aLongExcerptIsCutBetweenCharactersWithAnEllipsis() {
        let long = String(repeating: "é", count: 150) + String(repeating: "👍🏽", count: 100)
        let cut = try! #require(excerpt(long))
        #expect(cut.count == ResponseExcerpt.maxCharacters + 1 && cut.hasSuffix("…"))
        #expect(cut == String(repeating: "é", count: 150) + String(repeating: "👍🏽", count: 50) + "…")
        let exact = String(repeating: "x", count: ResponseExcerpt.maxCharacters)
        #expect(excerpt(exact) == exact)
    }

    @Test func invalidBytesAreReplacedAndACharacterCutByTheClientIsDropped() {
        #expect(ResponseExcerpt.of([0x61, 0xFF, 0x62], secrets: SecretValues([])) == "a\u{FFFD}b")
        // The client kept the first bytes only, ending inside a "é" (0xC3 0xA9).
        #expect(ResponseExcerpt.of([0x6F, 0x6B, 0xC3], bodyBytes: 10, secrets: SecretValues([])) == "ok")
        // Past the limit the body is read no further, even when the client kept more.
        let large = [UInt8](repeating: 0x20, count: TransportResponse.failureBodyLimit) + Array("hidden".utf8)
        #expect(ResponseExcerpt.of(large, secrets: SecretValues([])) == nil)
    }

    @Test func secretsAreMaskedInEveryFormTheBodyMayHoldThem() {
        let token = "tok-a/b+c"
        let secrets = [token, "sec123ret"]
        // As sent, inside a JSON string, with `/` escaped, percent-encoded, in an HTML reference.
        #expect(excerpt(#"{"error":"bad token tok-a\/b+c for sec123ret"}"#, secrets: secrets) == #"{"error":"bad token *** for ***"}"#)
        #expect(excerpt("token tok-a%2Fb%2Bc refused", secrets: secrets) == "token *** refused")
        #expect(excerpt("<title>tok-a&#x2F;b+c</title>", secrets: secrets) == "***")
        #expect(excerpt(#"{"t":"tok-\u0061/b+c"}"#, secrets: secrets) == #"{"t":"***"}"#)
        // Masked before the cut: a secret across the 200th character never shows a part.
        let long = String(repeating: "x", count: 195) + "sec123ret"
        #expect(excerpt(long, secrets: secrets) == String(repeating: "x", count: 195) + "***")
        // A body the client cut inside a secret: its start is masked too.
        #expect(excerpt("refused: sec12", bodyBytes: 100, secrets: secrets) == "refused: ***")
        #expect(excerpt("refused: sec12", secrets: secrets) == "refused: sec12")
    }

    @Test func aLongerSecretIsMaskedBeforeAShorterOneInsideIt() {
        let secrets = SecretValues(["cde", "abcdefg", "x"])
        #expect(secrets.redacting("abcdefg and cde and x") == "*** and *** and x")
        #expect(SecretValues(["", "y"]).isEmpty)
    }
}
