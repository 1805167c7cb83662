/// Who may do what beyond a session's own token: the operator's token and the creation policy
/// (`--admin-token`, `--create-sessions`; docs/API.md "Operators").
///
/// ```swift
/// AccessPolicy(adminToken: AdminToken(secret), createSessions: .admin)  // POST /sessions needs the admin bearer
/// ```
struct AccessPolicy: Sendable {
    /// nil: the admin routes answer 403 `admin-disabled`, and no token but a session's opens it.
    var adminToken: AdminToken?
    var createSessions = ServerConfiguration.CreationPolicy.open
    /// The `ttlSeconds` of a session created without one (`--session-ttl-s`).
    var sessionTTLSeconds = 0

    init(adminToken: AdminToken? = nil, createSessions: ServerConfiguration.CreationPolicy = .open) {
        self.adminToken = adminToken
        self.createSessions = createSessions
    }

    init(_ configuration: ServerConfiguration) {
        self.init(adminToken: configuration.adminToken, createSessions: configuration.createSessions)
        sessionTTLSeconds = configuration.sessionTTLSeconds
    }
}
