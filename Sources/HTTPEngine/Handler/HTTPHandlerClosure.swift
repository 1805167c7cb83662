/// Wraps a closure as an `HTTPHandler`.
///
/// ```swift
/// let server = HTTPServer(configuration: config, handler: HTTPHandlerClosure { request, responder in
///     responder.respond(HTTPResponse(status: 200, body: Array("ok".utf8)))
/// })
/// ```
public struct HTTPHandlerClosure: HTTPHandler {
    let body: @Sendable (HTTPRequest, HTTPResponder) -> Void

    public init(_ body: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void) { self.body = body }

    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) { body(request, responder) }
}
