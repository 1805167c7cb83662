import HTTPEngine

/// Cross-origin access for browsers (Fetch Standard, "CORS protocol").
///
/// A page on another origin may call the API: access is granted by the bearer token, never by
/// cookies, so every origin may ask (`*`) and no credentials mode is involved. The headers are
/// added only to requests that carry `Origin` (what browsers send cross-origin), so other
/// clients' answers stay as they were.
enum CORS {
    /// Response headers a page's script may read besides the CORS-safelisted ones.
    static let exposed = "ETag, Location, Retry-After, Allow, Idempotent-Replayed, Preference-Applied, WWW-Authenticate"
    /// Request headers a page may send (the API's own plus the ones every client uses).
    static let allowedHeaders = "Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, Prefer, Last-Event-ID"
    /// How long a browser may reuse a preflight answer, in seconds.
    static let maxAge = "600"

    /// Adds the answer's CORS headers when `request` came from a browser on some origin.
    static func addHeaders(for request: HTTPRequest, to headers: inout HTTPHeaders) {
        addHeaders(for: request.headers, to: &headers)
    }

    /// The same for a complete answer whose builder knows whether it says `Vary: Origin` already
    /// (`Exchange.send(_:saysVary:)`: every answer of `JSONAnswer` and `Problem` does), so its
    /// fields are not searched. They are left untouched when nothing is to be added: any change
    /// unmarks them as checked (`HTTPResponse.checkHeaders`), and a cached answer's (a session's
    /// head) are checked once, when it is built.
    static func addHeaders(for request: HTTPRequest, to response: inout HTTPResponse, saysVary: Bool) {
        if !saysVary { response.headers.add(static: "Vary", "Origin") }
        if hasOrigin(request.headers) { addHeaders(to: &response.headers) }
    }

    /// Whether a request says where a page runs (asked of every answer: the value is looked at
    /// in place, no string made of it).
    private static func hasOrigin(_ requestHeaders: HTTPHeaders) -> Bool {
        requestHeaders.withValue("Origin", { _ in true }) != nil
    }

    /// The same, from the request's header fields (all the engine had of a request it refused).
    /// Every such answer says `Vary: Origin`, with or without the headers: a cache must not give
    /// a page the answer kept for curl, which has none (Fetch Standard §3.2.5, RFC 9110 §12.5.5).
    static func addHeaders(for requestHeaders: HTTPHeaders, to headers: inout HTTPHeaders) {
        // A JSON answer has it already (`JSONAnswer.ok`): adding it again would copy the fields
        // of a cached answer, which every reader of the head shares.
        if !headers.contains(static: "Vary", "Origin") { headers.add(static: "Vary", "Origin") }
        guard hasOrigin(requestHeaders) else { return }
        addHeaders(to: &headers)
    }

    /// The headers whoever asked (for an answer whose request's headers are unknown).
    static func addHeaders(to headers: inout HTTPHeaders) {
        headers.add("Access-Control-Allow-Origin", "*")
        headers.add("Access-Control-Expose-Headers", exposed)
    }

    /// The answer to `OPTIONS` on a route: a preflight (it names `Access-Control-Request-Method`)
    /// or a plain question about the methods (RFC 9110 §9.3.7); 204 either way, with `Allow`.
    static func optionsAnswer(for request: HTTPRequest, allow: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Allow", allow)
        // Access-Control-Allow-Origin comes with every answer to a request with Origin
        // (`Exchange.send`); added here too, browsers read "*, *" and refuse the preflight.
        if request.headers["Origin"] != nil, request.headers["Access-Control-Request-Method"] != nil {
            headers.add("Access-Control-Allow-Methods", allow)
            headers.add("Access-Control-Allow-Headers", allowedHeaders)
            headers.add("Access-Control-Max-Age", maxAge)
        }
        return HTTPResponse(status: 204, headers: headers, body: [])
    }
}
