import HTTPEngine
import StoreCore

/// Where the answer to a request the session applies goes, named by value: the session holds it
/// under the machine's request id (in the request's `PendingAppend`, or in `waitingRepeats` for an
/// idempotent repeat) and sends the answer there when the machine says `.reply(id, outcome)`.
///
/// A value, not a captured closure: a client's POST names the exchange the router already made,
/// so carrying it through the session allocates nothing and costs one reference count.
///
/// ```swift
/// session.submit(submission, replyTo: .client(exchange))
/// ```
enum ReplyTo: Sendable {
    /// A client's request: its exchange sends the answer (CORS, metrics, the access log).
    case client(Exchange)
    /// An action an effect fed back: no client waits for it; a 503 is retried (`effectAnswered`).
    case effect(EffectAction)
    /// A caller inside the process that is neither (a test that submits directly).
    case handler(ReplyHandler)

    /// Sends `response` where this names, handing it over; called without the session's lock.
    func send(_ response: consuming HTTPResponse, from session: Session) {
        switch self {
        // A session's answers are built by `JSONAnswer` and `Problem`, which say `Vary: Origin`.
        case .client(let exchange): exchange.send(response, saysVary: true)
        case .effect(let action): session.effectAnswered(action, response)
        case .handler(let handler): handler.body(response)
        }
    }

    /// `.handler` of a closure.
    static func handler(_ body: @escaping @Sendable (HTTPResponse) -> Void) -> ReplyTo { .handler(ReplyHandler(body)) }
}

/// An action an effect feeds back into its session, and how many times it was retried after the
/// journal refused it (503). A class, as every payload of `ReplyTo` is: a copy of a reply is then
/// one reference count, whichever it is.
final class EffectAction: Sendable {
    let type: String
    let payload: JSONValue?
    let attempt: Int

    init(type: String, payload: JSONValue?, attempt: Int = 0) {
        self.type = type
        self.payload = payload
        self.attempt = attempt
    }
}

/// A closure that takes an answer (`ReplyTo.handler`).
final class ReplyHandler: Sendable {
    let body: @Sendable (HTTPResponse) -> Void

    init(_ body: @escaping @Sendable (HTTPResponse) -> Void) { self.body = body }
}
