/// A read of the head (or a refusal decided on it) made while the head was not durable yet:
/// answered once it is.
/// Held in `Session.parkedReads` (`SessionCore.ParkedReads`) with the version it waits for.
struct ParkedRead {
    let answer: @Sendable () -> Void
    /// Reads again: the version was rolled back, and its number will name another action.
    let again: @Sendable () -> Void
    /// The answer once parked past the deadline; nil for a refusal, which waits on (an
    /// Idempotency-Key may keep it).
    var expired: (@Sendable () -> Void)?
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
        guard version > durableVersion else {
            lock.unlock()
            return answer()
        }
        guard !headIsStuckLocked else {
            lock.unlock()
            return exchange.send(Self.stuckHead)
        }
        parkedReads.park(ParkedRead(answer: answer, again: { [self] in answerWhenDurable(exchange, read) },
                                    expired: { exchange.send(Self.notDurableInTime) }),
                         version: version, at: .now)
        lock.unlock()
    }

    /// The answer to a read whose head did not become durable within the deadline.
    static var notDurableInTime: Problem {
        Problem(503, "journal-unavailable", "the session's newest actions are not durable yet (the disk is slow); nothing was read",
                headers: [("Retry-After", "1")])
    }

    /// Answers 503 to the reads parked past `durableReadDeadlineMillis`: a disk that stalls holds
    /// the writes (their answers mean durable), but a read need not hang with them. The actions
    /// stay in flight; a later read gets them once durable. Called every second by the registry.
    /// Measured on the monotonic clock: a step of the wall clock neither expires nor holds them.
    func expireParkedReads(now: ContinuousClock.Instant = .now) {
        guard hasParkedReads.load(ordering: .relaxed) else { return }
        lock.lock()
        guard !parkedReads.isEmpty else { return lock.unlock() }
        let deadline = Duration.milliseconds(context.durableReadDeadlineMillis)
        let expired = parkedReads.expire(now: now, deadline: deadline)
        lock.unlock()
        for read in expired { read.expired?() }
    }

    /// `body`'s reading of the head, under the lock, when the head is durable; nil when it is not
    /// (then read through `answerWhenDurable`). The common case, without the escaping closures
    /// parking needs: their allocations cost a GET of the state 10% of its throughput.
    func withDurableHead<T>(_ body: () -> T) -> T? {
        lock.lock()
        defer { lock.unlock() }
        return store.version <= durableVersion && !deleted ? body() : nil
    }

    /// The parked reads whose versions are durable now, to be answered after unlocking.
    /// They are in version order: each read the head, which only moves forward between rollbacks.
    func takeDurableReadsLocked() -> [ParkedRead] {
        parkedReads.takeDurable(through: durableVersion)
    }

    /// Every parked read, to be read again after unlocking: after a rollback (their versions are
    /// gone) or a delete (they find the session gone).
    func takeAllParkedReadsLocked() -> [ParkedRead] {
        parkedReads.takeAll()
    }
}
