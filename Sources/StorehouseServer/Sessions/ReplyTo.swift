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
    case handler(@Sendable (HTTPResponse) -> Void)

    /// Sends `response` where this names; called without the session's lock.
    func send(_ response: HTTPResponse, from session: Session) {
        switch self {
        case .client(let exchange): exchange.send(response)
        case .effect(let action): session.effectAnswered(action, response)
        case .handler(let handler): handler(response)
        }
    }
}

/// An action an effect feeds back into its session, and how many times it was retried after the
/// journal refused it (503).
struct EffectAction: Sendable {
    let type: String
    let payload: JSONValue?
    var attempt = 0
}
