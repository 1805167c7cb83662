import Synchronization

/// The one answer to one request: a complete response or a stream.
///
/// The first of `respond` / `startStream` wins; later calls are ignored. If the responder is
/// released without an answer, the client gets a 500 instead of hanging.
///
/// A handler may answer through a subclass of its own, made by
/// ``HTTPHandler/responder(for:answering:)``: what it keeps per request then lives in the same
/// object as the answer's place, one allocation per request rather than two.
///
/// ```swift
/// final class Tracked: HTTPResponder {
///     let started = ContinuousClock.now
/// }
/// ```
// @unchecked: every stored property is a `let` of a Sendable type or an atomic, and a subclass
// must keep it so (the server's `Exchange` does); a non-final class cannot be checked.
open class HTTPResponder: @unchecked Sendable {
    /// Where an answer goes: the loop and connection the request was read on, its place in the
    /// connection's order of answers, and how the answer is framed. The engine makes one per
    /// request; a handler passes it on to ``HTTPResponder/init(answering:)``.
    public struct Slot: Sendable {
        let loop: EventLoop
        let connection: ConnectionRef
        let sequence: UInt64
        let framing: AnswerFraming
    }

    /// The request this answers (the head alone for one offered to `handleExpectation`). The
    /// engine moves it in, and `handle` reads it here: a handler's responder keeps the request
    /// without a copy of it (three reference counts, and as many releases).
    public let request: HTTPRequest
    let loop: EventLoop
    let connection: ConnectionRef
    let sequence: UInt64
    /// How the answer is framed, fixed when the request was read: what another thread needs to
    /// write it itself (`EventLoop.answerDirectly`).
    let framing: AnswerFraming
    private let answered = Atomic<Bool>(false)

    /// A responder for `request` that answers at `slot`: one per slot, as the engine hands each
    /// out once.
    public init(request: consuming HTTPRequest, answering slot: Slot) {
        self.request = request
        self.loop = slot.loop
        self.connection = slot.connection
        self.sequence = slot.sequence
        self.framing = slot.framing
    }

    /// The I/O thread the request was read on, `0..<ioThreads`: work `handle` leaves for that
    /// loop's end of iteration is finished by ``HTTPHandler/eventLoopWillWait(loop:)`` with this index.
    public final var loopIndex: Int { loop.index }

    /// A stream is chunked in HTTP/1.1 and close-delimited in HTTP/1.0 (RFC 9112 §6.3 (8)).
    final var chunked: Bool { !framing.http10 }

    /// Sends `response`; `Date`, `Content-Length` and `Connection` are added by the engine.
    ///
    /// From another thread the answer is written to the socket right here when the loop allows
    /// it (`EventLoop+DirectAnswer.swift`), and otherwise handed to the loop.
    public final func respond(_ response: HTTPResponse) {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if loop.isCurrentThread {
            loop.deliver(connection.connection, sequence: sequence, response: response)
        } else if !loop.answerDirectly(connection, sequence: sequence, response: response, framing: framing) {
            loop.enqueue(.respond(connection, sequence, response))
        }
    }

    /// Starts a streaming response (chunked in HTTP/1.1, close-delimited in HTTP/1.0) and returns its writer.
    public final func startStream(status: Int, headers: HTTPHeaders) -> HTTPStream {
        let stream = HTTPStream(loop: loop, connection: connection, chunked: chunked,
                                maxBufferedBytes: loop.core.configuration.maxStreamBufferBytes)
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else {
            stream.closeFromLoop()
            return stream
        }
        if loop.isCurrentThread {
            loop.beginStream(connection.connection, sequence: sequence, stream: stream, status: status, headers: headers)
        } else {
            loop.enqueue(.startStream(connection, sequence, stream, status, headers))
        }
        return stream
    }

    /// Marks a responder that was offered a request head and not used (`HTTPHandler.handleExpectation`
    /// returned false): the request's answer comes through another one. Its release then queues no
    /// 500 (which would be dropped anyway: its sequence number is spent).
    final func withdraw() {
        answered.store(true, ordering: .releasing)
    }

    deinit {
        if !answered.load(ordering: .acquiring) {
            let body = ResponseEncoder.problemBody(HTTPParseError(status: 500, slug: "internal-error", title: "Internal Server Error",
                                                                  detail: "the handler returned no response"))
            loop.enqueue(.respond(connection, sequence, HTTPResponse(status: 500, headers: ResponseEncoder.problemHeaders(), body: body)))
        }
    }
}
