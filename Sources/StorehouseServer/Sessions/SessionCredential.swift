/// What a session's token is checked against before the session is used
/// (`SessionRegistry.credential(_:)`): the resident session, or a hibernated one's summary, so
/// an unauthorized request costs a hash, never a load from disk.
///
/// ```swift
/// registry.credential(id)?.accepts(token: bytes)   // nil: no such session
/// ```
enum SessionCredential: Sendable {
    case resident(Session)
    /// A hibernated session's token's SHA-256: all of its summary a credential needs, and one
    /// reference, so a credential copies as cheaply as the resident case.
    case hibernated(tokenHash: [UInt8])

    /// Whether `token` is the session's, in constant time (`Secrets.constantTimeEqual`).
    func accepts(token: UnsafeBufferPointer<UInt8>) -> Bool {
        switch self {
        case .resident(let session): session.accepts(token: token)
        case .hibernated(let tokenHash): Secrets.constantTimeEqual(SHA256.hash(token), tokenHash)
        }
    }

    var isHibernated: Bool {
        if case .hibernated = self { return true }
        return false
    }
}
