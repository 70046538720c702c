/// One header field, of a request or of a server's response.
public struct HTTPHeader: Sendable, Hashable {
    /// The field name as sent; the engine recognises `User-Agent` in any case.
    public var name: String
    package var value: String

    /// A header sent as `name: value`. The engine writes both unchecked, so the caller makes sure
    /// the name is an RFC 9110 token and the value holds no CR, LF or NUL.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
