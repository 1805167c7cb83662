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
    /// What answers a request: ``HTTPResponder`` itself, or a subclass that also holds what the
    /// handler keeps per request (made by `responder(for:answering:)`).
    associatedtype Responder: HTTPResponder = HTTPResponder

    func handle(_ request: HTTPRequest, _ responder: Responder)

    /// What the engine calls for every complete request, with the responder that keeps it
    /// (`responder.request`). The default calls `handle(responder.request, responder)`; a handler
    /// whose own responder holds all it reads implements this, and spares the request's copy
    /// that reading it out of the responder makes (a retain and release of its buffers).
    func handle(_ responder: Responder)

    /// Makes the responder for `request` (a complete one, or a head offered to
    /// `handleExpectation`), on the I/O thread, before `handle` gets both (the request as the
    /// responder's `request`). It must not block, and must pass both on to
    /// ``HTTPResponder/init(request:answering:)``. The default makes an ``HTTPResponder``.
    ///
    /// ```swift
    /// func responder(for request: consuming HTTPRequest, answering slot: HTTPResponder.Slot) -> Tracked {
    ///     Tracked(request: request, answering: slot)
    /// }
    /// ```
    func responder(for request: consuming HTTPRequest, answering slot: HTTPResponder.Slot) -> Responder

    /// The last step of each iteration of I/O thread `loop` (`0..<ioThreads`, as
    /// ``HTTPResponder/loopIndex`` names it), once it has handled every ready event and before it
    /// waits for more: the place to finish, in one go, work that the iteration's requests on that
    /// loop left pending (a journal group commit), and to answer them from this thread. It may
    /// block briefly; the thread's other connections wait meanwhile. The default does nothing.
    ///
    /// ```swift
    /// func eventLoopWillWait(loop: Int) {
    ///     journal.commit(loop: loop)  // what `handle` queued on this loop, as one group
    /// }
    /// ```
    func eventLoopWillWait(loop: Int)

    /// Called on the I/O thread when the engine answers a request itself, before any handler saw
    /// it: malformed or oversized (400, 413, 414, 431, 505), too slow (408), or over the connection
    /// limit (503). The place to count and log such answers; the headers returned are added to the
    /// problem answer (CORS, for a browser to read it). It must not block. The default adds none.
    func engineRefused(_ refused: RefusedRequest) -> HTTPHeaders

    /// Called on the I/O thread when a request asks `Expect: 100-continue` and its body is not read
    /// yet (RFC 9110 §10.1.1): the chance to refuse it from its head, so the client never sends a
    /// body that would be refused anyway (an unknown route, a missing token). To refuse, answer
    /// through `responder` before returning, and return true: the connection closes after that
    /// answer, since the client may send the body regardless. Return false, without answering, to
    /// have the engine send `100 Continue`; `handle` then gets the whole request. The default
    /// returns false.
    ///
    /// Also called at shutdown for a request whose body is still arriving, without the
    /// expectation: a refusal answers it at once, rather than once a body that may never come is
    /// in; without one, the engine goes on reading the body until the grace period ends.
    ///
    /// ```swift
    /// func handleExpectation(_ head: HTTPRequest, _ responder: HTTPResponder) -> Bool {
    ///     guard head.headers["Authorization"] == nil else { return false }
    ///     responder.respond(HTTPResponse(status: 401))
    ///     return true
    /// }
    /// ```
    func handleExpectation(_ head: HTTPRequest, _ responder: Responder) -> Bool
}

extension HTTPHandler where Responder == HTTPResponder {
    public func responder(for request: consuming HTTPRequest, answering slot: HTTPResponder.Slot) -> HTTPResponder {
        HTTPResponder(request: request, answering: slot)
    }
}

extension HTTPHandler {
    public func handle(_ responder: Responder) { handle(responder.request, responder) }

    public func eventLoopWillWait(loop: Int) {}

    public func engineRefused(_ refused: RefusedRequest) -> HTTPHeaders { HTTPHeaders() }

    public func handleExpectation(_ head: HTTPRequest, _ responder: Responder) -> Bool { false }
}
