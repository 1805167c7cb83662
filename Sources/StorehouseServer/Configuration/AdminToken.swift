/// The operator's token (`--admin-token`), held only as its SHA-256 so that the secret itself is
/// in no structure a log line, a crash report or a `print` of the configuration could show.
///
/// ```swift
/// let token = AdminToken("an-operator-secret-of-32-or-more-chars")!
/// token.accepts("an-operator-secret-of-32-or-more-chars")  // true
/// print(token)                                             // "AdminToken(redacted)"
/// ```
public struct AdminToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Below this a token is guessable; 32 base64url characters carry 192 bits.
    public static let minimumLength = 32

    let hash: [UInt8]

    /// nil when `text` is shorter than ``minimumLength`` or holds a character a bearer token
    /// cannot carry (RFC 6750 §2.1: b64token, here any visible ASCII).
    public init?(_ text: String) {
        guard text.utf8.count >= Self.minimumLength, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        hash = SHA256.hash(Array(text.utf8))
    }

    /// Whether `token` is this one. Compared as digests, in constant time: the time depends on
    /// neither the presented token's length nor how much of it is right.
    func accepts(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        Secrets.constantTimeEqual(SHA256.hash(token), hash)
    }

    public func accepts(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { accepts($0) }
    }

    public var description: String { "AdminToken(redacted)" }
    public var debugDescription: String { description }
}
