extension Session {
    /// The head a parked read waited for is durable.
    func answerParked(_ read: ParkedRead) {
        switch read {
        case .read(let read): read.answer()
        case .refusal(let parked):
            let waiters = parked.kept ? lock.withLock { refusalBecameDurableLocked(parked.submission) } : []
            parked.reply.send(parked.refusal, from: self)
            let replay = Self.replayed(parked.refusal)
            for waiter in waiters { waiter.send(replay, from: self) }
        }
    }

    /// The version a parked read waited for was rolled back (or the session deleted, or the head stuck).
    func readParkedAgain(_ read: ParkedRead) {
        switch read {
        case .read(let read): read.again()
        case .refusal(let parked): submit(parked.submission, committer: .journalWriter, replyTo: parked.reply)
        }
    }

    /// A parked read waited past the deadline: a read answers `problem`, a refusal waits on.
    func refuseParked(_ read: ParkedRead, _ problem: Problem) {
        if case .read(let read) = read { read.refuse(problem) }
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
        parkedReads[id] = .read(HeadRead(answer: answer, again: { [self] in answerWhenDurable(exchange, read) }, refuse: { exchange.send($0) }))
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
