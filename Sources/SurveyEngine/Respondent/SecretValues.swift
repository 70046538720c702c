import SurveyJourney
import SurveyWire

/// The values a run must never show of what a server sent back, and the one way they are
/// hidden: each occurrence written `***`.
///
/// What is secret: the plan's values from the environment and its header values
/// (`RunConfiguration.secrets`), the proxy's credentials, and a respondent's own — the values
/// its session captured, its row of the data feed, its cookies, and what the step's captures
/// find in the response being quoted (`Respondent.secrets(seeing:step:_:)`). A server may echo
/// any of them in a refusal (`invalid token tok-…`), and a failing check quotes what it found,
/// which reports and the raw log quote in turn: the respondent redacts the reason it records
/// (`Respondent.settle`), where its session is at hand.
package struct SecretValues: Sendable, Hashable {
    /// What replaces a secret.
    package static let mask = "***"

    /// Values shorter than this are left: a secret of one character would mask every
    /// occurrence of that character, and hides nothing (`PlanText.redacting` keeps the same rule).
    package static let minimumLength = 2

    /// Every form a value may be written in, longest first: masking a longer secret before a
    /// shorter one inside it leaves nothing of either.
    private(set) var forms: [String]

    /// The secrets among `values`: those of at least `minimumLength` characters, each as it
    /// is, as a JSON string writes it (with `/` escaped too, as some servers do) and
    /// percent-encoded, as a URL echoed back would hold it.
    package init(_ values: some Sequence<String>) {
        var forms = Set<String>()
        for value in values where value.count >= Self.minimumLength {
            forms.insert(value)
            let json = String(JSONValue.quoted(value).dropFirst().dropLast())
            forms.insert(json)
            forms.insert(json.replacing("/", with: "\\/"))
            forms.insert(Self.percentEncoded(value))
        }
        self.forms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// Whether there is nothing to hide.
    package var isEmpty: Bool { forms.isEmpty }

    /// `text` with every secret in it written `***`. `cut`: the text is the start of a longer
    /// one, so that a secret may begin at its end and go on past it: an end that begins a
    /// secret (two characters or more of it) is masked too.
    package func redacting(_ text: String, cut: Bool = false) -> String {
        guard !forms.isEmpty else { return text }
        var text = text
        for form in forms where text.contains(form) {
            text = text.replacing(form, with: Self.mask)
        }
        guard cut else { return text }
        for form in forms {
            var length = min(form.count - 1, text.count)
            while length >= Self.minimumLength {
                if text.hasSuffix(form.prefix(length)) {
                    return String(text.dropLast(length)) + Self.mask
                }
                length -= 1
            }
        }
        return text
    }

    /// `value` with every byte but the unreserved characters of RFC 3986 as `%XX`.
    private static func percentEncoded(_ value: String) -> String {
        var result = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count < 2 ? "0" : "") + hex
            }
        }
        return result
    }
}
