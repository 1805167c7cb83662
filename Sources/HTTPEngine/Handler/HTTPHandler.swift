/// What the server calls for every complete request, on the connection's I/O thread.
///
/// Answer through `responder` exactly once, from any thread. Answering inside `handle` is the fast
/// path (no thread hop; pipelined answers leave together). Never block here: hand slow work to
/// another queue and respond from there.
///
/// ```swift
/// struct Hello: HTTPHandler {
///     func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
///         responder.respond(HTTPResponse(status: 200, body: Array("hi".utf8)))
///     }
/// }
/// ```
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder)

    /// Called on each I/O thread when it has handled every ready event and is about to wait for
    /// more: the place to finish, in one go, work that the iteration's requests left pending (a
    /// journal group commit), and to answer them from this thread. It may block briefly; the
    /// thread's other connections wait meanwhile. The default does nothing.
    func eventLoopWillWait()
}

extension HTTPHandler {
    public func eventLoopWillWait() {}
}

/// Wraps a closure as an `HTTPHandler`.
public struct HTTPHandlerClosure: HTTPHandler {
    let body: @Sendable (HTTPRequest, HTTPResponder) -> Void

    public init(_ body: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void) { self.body = body }

    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) { body(request, responder) }
}
