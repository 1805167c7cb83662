/// A complete response. The engine adds `Date`, `Content-Length` and `Connection` itself.
///
/// ```swift
/// var response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"ok":true}"#.utf8))
/// _ = response.checkHeaders()  // for an answer sent many times: its fields are checked once
/// responder.respond(response)
/// ```
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Any change to the fields unmarks them as checked (`checkHeaders`).
    public var headers: HTTPHeaders { didSet { headersChecked = false } }
    public var body: [UInt8]
    /// Whether every field of `headers` is known to be written as it is: a token name, a value
    /// without CR, LF or other controls (RFC 9110 §5.5), and none of the framing fields the
    /// engine writes itself. The engine then skips those checks when it encodes the answer.
    public private(set) var headersChecked = false

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Checks the fields once, for an answer built to be sent many times (a session's cached
    /// head): when they pass, each send writes them without looking at them again. Returns
    /// whether they passed; fields that do not are checked (and dropped) at every send as usual.
    @discardableResult
    public mutating func checkHeaders() -> Bool {
        headersChecked = ResponseEncoder.fieldsWritableAsIs(headers)
        return headersChecked
    }

    /// Marks the fields as checked without looking at them, for fields the server writes from its
    /// own constants and numbers, never from a request (a JSON answer's `Content-Type`, `ETag`
    /// and `Vary`): looking costs as much as encoding them. Debug builds look anyway.
    public mutating func assumeHeadersChecked() {
        assert(ResponseEncoder.fieldsWritableAsIs(headers), "a field assumed writable as it is is not")
        headersChecked = true
    }
}
