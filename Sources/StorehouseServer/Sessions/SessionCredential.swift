/// What a session's token is checked against before the session is used
/// (`SessionRegistry.credential(_:)`): the resident session, or a hibernated one's summary, so
/// an unauthorized request costs a hash, never a load from disk.
///
/// ```swift
/// registry.credential(id)?.accepts(token: bytes)   // nil: no such session
/// ```
enum SessionCredential: Sendable {
    case resident(Session)
    case hibernated(SessionSummary)

    /// Whether `token` is the session's, in constant time (`Secrets.constantTimeEqual`).
    func accepts(token: UnsafeBufferPointer<UInt8>) -> Bool {
        switch self {
        case .resident(let session): session.accepts(token: token)
        case .hibernated(let summary): Secrets.constantTimeEqual(SHA256.hash(token), summary.tokenHash)
        }
    }

    var isHibernated: Bool {
        if case .hibernated = self { return true }
        return false
    }
}
