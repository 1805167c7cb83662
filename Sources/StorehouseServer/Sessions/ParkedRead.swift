import HTTPEngine

/// What waits for a durable head, held by the session under an id (`Session.parkedReads`); the
/// machine parks the id with the version it waits for, and its commands name it.
enum ParkedRead: Sendable {
    /// A read of the head (the router's), made while the head was not durable yet.
    case read(HeadRead)
    /// A refusal (412, 409) decided on a head not yet durable: where it goes, by value.
    case refusal(ParkedRefusal)
}

/// A read of the head made while the head was not durable yet: answered once it is.
final class HeadRead: Sendable {
    let answer: @Sendable () -> Void
    /// Reads again: the version was rolled back, and its number will name another action.
    let again: @Sendable () -> Void
    /// Answers a problem instead (the read waited past the deadline).
    let refuse: @Sendable (Problem) -> Void

    init(answer: @escaping @Sendable () -> Void, again: @escaping @Sendable () -> Void, refuse: @escaping @Sendable (Problem) -> Void) {
        self.answer = answer
        self.again = again
        self.refuse = refuse
    }
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
