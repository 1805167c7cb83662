import HTTPEngine
import StoreCore

/// What waits for a durable head, held by the session under an id (`Session.parkedReads`); the
/// machine parks the id with the version it waits for, and its commands name it.
enum ParkedRead: Sendable {
    /// A read of the head (the router's), made while the head was not durable yet, and what it read.
    case read(HeadRead, HeadAnswer)
    /// A refusal (412, 409) decided on a head not yet durable: where it goes, by value.
    case refusal(ParkedRefusal)
}

/// A read of the head, named by value: what it reads and where its answer goes. Parked while
/// the head is not durable yet, it is answered once it is (`Router.send(_:_:)`), read again if
/// the version is rolled back, or refused past the deadline; no closure of the router's is held.
///
/// ```swift
/// session.answerWhenDurable(HeadRead(target: .state, exchange: exchange, ifNoneMatch: nil))
/// ```
struct HeadRead: Sendable {
    enum Target: Sendable {
        /// The whole state (`GET …/state`).
        case state
        /// The value at a JSON Pointer (`GET …/state?path=`), and the pointer as the client wrote it.
        case value(JSONPointer, path: String)
    }

    let target: Target
    let exchange: Exchange
    /// The request's `If-None-Match`, parsed: a 304 when it names the version read (RFC 9110 §13.1.2).
    let ifNoneMatch: [EntityTag]?
}

/// What a `HeadRead` read under the session's lock: the version shown and the state's answer, or
/// the value at the pointer (nil: nothing is there).
struct HeadAnswer: Sendable {
    enum Content: Sendable {
        case state(HTTPResponse)
        /// The value's bytes, and the pointer as the client wrote it (for the 404 of nothing there).
        case value([UInt8]?, path: String)
    }

    let version: Int
    let content: Content
}

/// A refusal waiting for the head it was decided on to be durable (`Session.refuseWhenDurableLocked`):
/// then sent to `reply` (and to the repeats waiting on its key when `kept`); if that head is
/// rolled back, the request is submitted again. Past a read's deadline it waits on: an
/// Idempotency-Key may keep it.
struct ParkedRefusal: Sendable {
    let submission: ActionSubmission
    let reply: ReplyTo
    let refusal: HTTPResponse
    /// Kept as its Idempotency-Key's first answer (`keepRefusalLocked`).
    let kept: Bool
}
