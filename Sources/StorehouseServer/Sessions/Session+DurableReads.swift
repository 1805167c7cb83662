/// A read of the head (or a refusal decided on it) made while the head was not durable yet:
/// answered once it is.
/// Held by the session under an id (`Session.parkedReads`); the machine parks the id with the
/// version it waits for, and its commands name it.
final class ParkedRead: Sendable {
    let answer: @Sendable () -> Void
    /// Reads again: the version was rolled back, and its number will name another action.
    let again: @Sendable () -> Void
    /// Answers a problem instead (the read waited past the deadline); nil for a refusal, which
    /// waits on (an Idempotency-Key may keep it).
    let refuse: (@Sendable (Problem) -> Void)?

    init(answer: @escaping @Sendable () -> Void, again: @escaping @Sendable () -> Void, refuse: (@Sendable (Problem) -> Void)? = nil) {
        self.answer = answer
        self.again = again
        self.refuse = refuse
    }
}

extension Session {
    /// Answers a read of the head only once the version it shows is durable.
    ///
    /// Under `--fsync always` the head runs ahead of the journal by the actions in flight. Until
    /// they are durable a crash can take them back, and a client that had read one would hold a
    /// state, an ETag or a `Last-Event-ID` of a version the session never had; its next
    /// `If-Match` could even match a different state that reused the number. So, as Redis sends
    /// no reply before the fsync of its loop iteration, such a read waits for the journal (at
    /// most one sync). In memory, or with nothing in flight, it answers at once.
    ///
    /// `read` runs under the lock: it returns the version its answer shows and the answer.
    ///
    /// ```swift
    /// session.answerWhenDurable(exchange) { [session] in
    ///     let (version, response) = session.stateAnswerLocked()
    ///     return (version, { exchange.send(response) })
    /// }
    /// ```
    func answerWhenDurable(_ exchange: Exchange, _ read: @escaping @Sendable () -> (version: Int, answer: @Sendable () -> Void)) {
        lock.lock()
        guard !deleted else {
            lock.unlock()
            return exchange.send(SessionProblems.notFound)
        }
        let (version, answer) = read()
        // The common case, without building a parked read.
        guard !machine.isDurable(version) else {
            lock.unlock()
            return answer()
        }
        let id = requestIDLocked()
        parkedReads[id] = ParkedRead(answer: answer, again: { [self] in answerWhenDurable(exchange, read) }, refuse: { exchange.send($0) })
        var after = Afterwards()
        feedLocked(.read(id, version: version, head: store.version, at: .now), into: &after)
        lock.unlock()
        after.run(self)
    }

    /// Answers 503 to the reads parked past `durableReadDeadlineMillis`: a disk that stalls holds
    /// the writes (their answers mean durable), but a read need not hang with them. The actions
    /// stay in flight; a later read gets them once durable. Called every second by the registry.
    /// Measured on the monotonic clock: a step of the wall clock neither expires nor holds them.
    func expireParkedReads(now: ContinuousClock.Instant = .now) {
        guard hasParkedReads.load(ordering: .relaxed) else { return }
        lock.lock()
        guard !machine.parked.isEmpty else { return lock.unlock() }
        var after = Afterwards()
        feedLocked(.tick(now: now, deadline: .milliseconds(context.durableReadDeadlineMillis)), into: &after)
        lock.unlock()
        after.run(self)
    }

    /// `body`'s reading of the head, under the lock, when the head is durable; nil when it is not
    /// (then read through `answerWhenDurable`). The common case, without the escaping closures
    /// parking needs: their allocations cost a GET of the state 10% of its throughput.
    func withDurableHead<T>(_ body: () -> T) -> T? {
        lock.lock()
        defer { lock.unlock() }
        return store.version <= durableVersion && !deleted ? body() : nil
    }
}
