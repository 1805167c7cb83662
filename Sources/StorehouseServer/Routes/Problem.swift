import HTTPEngine
import StoreCore

/// An RFC 9457 problem document: the one shape every refusal of the API takes.
///
/// ```swift
/// Problem(.notFound, "session-not-found", "no session with this id").response()
/// ```
struct Problem: Error, Sendable {
    let status: Int
    let slug: String
    let detail: String
    var extra: [(String, JSONValue)] = []
    var headers: [(String, String)] = []

    init(_ status: Int, _ slug: String, _ detail: String, extra: [(String, JSONValue)] = [], headers: [(String, String)] = []) {
        self.status = status
        self.slug = slug
        self.detail = Problem.clipped(detail, to: Problem.detailCharacters)
        self.extra = extra
        self.headers = headers
    }

    /// The body and headers; members in a fixed order (RFC 9457 §3), extras after them.
    func response() -> HTTPResponse {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"type":"/problems/"#.utf8)
        out.append(contentsOf: slug.utf8)
        out.append(contentsOf: #"","title":"#.utf8)
        out += JSONValue.string(ProblemCatalog.title(for: slug, status: status)).encoded()
        out.append(contentsOf: #","status":"#.utf8)
        out.append(contentsOf: String(status).utf8)
        out.append(contentsOf: #","detail":"#.utf8)
        out += JSONValue.string(detail).encoded()
        for (name, value) in extra {
            out.append(UInt8(ascii: ","))
            out += JSONValue.string(name).encoded()
            out.append(UInt8(ascii: ":"))
            out += value.encoded()
        }
        out.append(UInt8(ascii: "}"))
        var h = HTTPHeaders()
        h.add("Content-Type", "application/problem+json")
        for (name, value) in headers { h.add(name, value) }
        // Every answer says it (`CORS.addHeaders`); said here, `Exchange` need not look for it.
        h.add(static: "Vary", "Origin")
        return HTTPResponse(status: status, headers: h, body: out)
    }

    /// A problem document kept as its bytes (a refusal kept for an Idempotency-Key, read back
    /// after a restart): one with no headers but its Content-Type.
    static func storedResponse(status: Int, body: [UInt8]) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", "application/problem+json")
        h.add(static: "Vary", "Origin")
        return HTTPResponse(status: status, headers: h, body: body)
    }
}

/// Titles and the short explanations served at `GET /problems/{slug}`.
enum ProblemCatalog {
    static let entries: [String: (title: String, explanation: String)] = [
        "not-found": ("Not Found", "No resource is served at this path."),
        "method-not-allowed": ("Method Not Allowed", "The resource exists but does not accept this method; the Allow header lists the ones it does."),
        "not-implemented": ("Not Implemented", "The request uses a transfer coding the server does not know (RFC 9112 §6.1); only chunked is understood. The connection is closed after this answer."),
        "bad-request": ("Bad Request", "The request is not valid HTTP/1.1 (RFC 9112); the connection is closed after this answer."),
        "malformed-json": ("Malformed JSON", "The request body is not valid JSON (RFC 8259)."),
        "invalid-body": ("Invalid Body", "The body is JSON but not the shape this route takes."),
        "invalid-header": ("Invalid Header", "A request header this route reads has a value it cannot use, e.g. an Idempotency-Key longer than 255 bytes, or Authorization or Idempotency-Key given more than once."),
        "internal-error": ("Internal Error", "The server failed in a way it did not expect; nothing changed. The server log has the details."),
        "replay-failed": ("Replay Failed", "The state at that version could not be rebuilt from the kept history."),
        "unknown-parameter": ("Unknown Parameter", "The route does not read this query parameter (parameter names it); a misspelt parameter is refused rather than ignored."),
        "invalid-export": ("Invalid Export", "The body is not an export document this server can import; detail names the member (a state that does not decode, actions that do not replay to their version included). Nothing was created."),
        "session-exists": ("Session Exists", "A session with the export's id exists (or is being imported); delete it first to import it again."),
        "admin-disabled": ("Admin Disabled", "This route needs the admin token, and the server has none: start it with --admin-token (or STOREHOUSE_ADMIN_TOKEN) set to a secret of at least 32 characters."),
        "invalid-query": ("Invalid Query Parameter", "A query parameter is not a value this route accepts."),
        "invalid-state": ("Invalid State", "The given state does not decode as the kind's State."),
        "unknown-kind": ("Unknown Kind", "No store kind has this name; validKinds lists them."),
        "session-not-found": ("Session Not Found", "No session has this id."),
        "misdirected-request": ("Misdirected Request", "The session's id names another node of the cluster (member node): the proxy in front of the nodes sent the request to the wrong one. Its routing rule sends /sessions/<node>.… to that node."),
        "node-unavailable": ("Node Unavailable", "The proxy in front of the cluster could not reach the node that holds this session (it is down or restarting). Nothing else is affected; retry after Retry-After seconds."),
        "session-damaged": ("Session Damaged", "The session's journal could not be replayed at start; its files are kept for inspection and DELETE removes them. No other request is served for it."),
        "unauthorized": ("Unauthorized", "Send the session's token as Authorization: Bearer <token>."),
        "too-many-sessions": ("Too Many Sessions", "The server holds as many sessions as it may; retry later or delete one."),
        "invalid-action": ("Invalid Action", "An action is a JSON object with a string type (a Flux Standard Action)."),
        "empty-batch": ("Empty Batch", "A batch must hold at least one action."),
        "batch-too-large": ("Batch Too Large", "A batch holds at most --history actions, so that a refused journal append can always be rolled back."),
        "unknown-action": ("Unknown Action", "The session's kind has no action of this type; validTypes lists them."),
        "invalid-payload": ("Invalid Payload", "The action's payload is not what its type takes; detail names the field."),
        "internal-action": ("Internal Action", "Only the store's effects may send this action."),
        "action-rejected": ("Action Rejected", "The reducer refused the action in the current state; nothing changed."),
        "version-mismatch": ("Version Mismatch", "If-Match named another version; currentVersion is the session's."),
        "idempotency-key-reused": ("Idempotency Key Reused", "This Idempotency-Key was used with another body in this session."),
        "body-too-large": ("Body Too Large", "The request body is larger than the server accepts."),
        "action-too-large": ("Action Too Large", "An action's payload and meta together are more JSON than --max-action-bytes allows; maxActionBytes says how much."),
        "memory-budget": ("Memory Budget", "The server holds as much as its memory budget (--max-memory) allows: writes are refused until windows have shrunk or sessions have left; reads still work. Retry after Retry-After seconds."),
        "path-not-found": ("Path Not Found", "The JSON Pointer names nothing in the state."),
        "version-not-found": ("Version Not Found", "The version is ahead of the session or older than the kept history."),
        "journal-unavailable": ("Journal Unavailable", "The action could not be made durable; nothing changed. Retry later."),
        "not-ready": ("Not Ready", "The server is recovering sessions from disk or shutting down."),
        "request-timeout": ("Request Timeout", "The request did not arrive in time."),
        "uri-too-long": ("URI Too Long", "The request target is longer than the server accepts."),
        "headers-too-large": ("Request Header Fields Too Large", "The header block is larger, or has more fields, than the server accepts."),
        "http-version-not-supported": ("HTTP Version Not Supported", "Only HTTP/1.0 and HTTP/1.1 are served."),
        "too-many-connections": ("Too Many Connections", "The server has as many connections open as it may."),
    ]

    static func title(for slug: String, status: Int) -> String {
        entries[slug]?.title ?? "Error \(status)"
    }
}
