/// What the engine had read of a request it answered itself (see `HTTPHandler.engineRefused`).
///
/// ```swift
/// func engineRefused(_ refused: RefusedRequest) -> HTTPHeaders {
///     log("\(refused.method) \(refused.path) \(refused.status)")
///     return refused.headers["Origin"] == nil ? [:] : ["Access-Control-Allow-Origin": "*"]
/// }
/// ```
public struct RefusedRequest: Sendable {
    /// The status of the problem answer about to be sent.
    public let status: Int
    /// The request line's method and target; empty when the refusal came before they were read
    /// (the connection limit, a malformed request line).
    public let method: String
    public let target: String
    /// The header fields read before the refusal: all of them for a body refused as too large,
    /// some or none for a refusal inside the header block.
    public let headers: HTTPHeaders
    /// Whether `headers` is the whole header block: false for a refusal inside it (too many or too
    /// large fields, a header timeout), where a field such as `Origin` may not have been read yet.
    public let headerBlockComplete: Bool

    public init(status: Int, method: String, target: String, headers: HTTPHeaders, headerBlockComplete: Bool = true) {
        self.status = status
        self.method = method
        self.target = target
        self.headers = headers
        self.headerBlockComplete = headerBlockComplete
    }

    /// The target's path as `HTTPRequest.path` reads it: without its query (which may carry a
    /// secret, such as `?access_token=`) and, in absolute form, without scheme and authority
    /// (which may carry a password). Empty when there is no target.
    public var path: String {
        target.isEmpty ? "" : HTTPRequest(method: method, target: target).path
    }
}
