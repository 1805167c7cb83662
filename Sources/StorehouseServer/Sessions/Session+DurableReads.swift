import SessionCore

extension Session {
    /// The head a parked read waited for is durable.
    func answerParked(_ read: ParkedRead) {
        switch read {
        case .read(let read, let answer): Router.send(answer, to: read)
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
        case .read(let read, _): answerWhenDurable(read)
        case .refusal(let parked): submit(parked.submission, committer: .journalWriter, replyTo: parked.reply)
        }
    }

    /// A parked read waited past the deadline: a read answers `problem`, a refusal waits on.
    func refuseParked(_ read: ParkedRead, _ problem: Problem) {
        if case .read(let read, _) = read { read.exchange.send(problem) }
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
    /// The read is a value (`HeadRead`): parked, it costs no closure, and read again after a
    /// rollback it reads the head as it is then.
    ///
    /// ```swift
    /// session.answerWhenDurable(HeadRead(target: .state, exchange: exchange, ifNoneMatch: nil))
    /// ```
    func answerWhenDurable(_ read: HeadRead) {
        lock.lock()
        guard !deleted else {
            lock.unlock()
            return read.exchange.send(SessionProblems.notFound)
        }
        let answer = headAnswerLocked(read.target)
        // The common case, without parking the read.
        guard !machine.isDurable(answer.version) else {
            lock.unlock()
            return Router.send(answer, to: read)
        }
        let id = requestIDLocked()
        parkedReads[id] = .read(read, answer)
        var after = Afterwards()
        feedLocked(.read(id, version: answer.version, head: store.version, at: .now), into: &after)
        lock.unlock()
        after.run(self)
    }

    /// What `target` reads of the head now; called with the lock held.
    func headAnswerLocked(_ target: HeadRead.Target) -> HeadAnswer {
        switch target {
        case .state:
            let (version, response) = stateAnswerLocked()
            return HeadAnswer(version: version, content: .state(response))
        case .value(let pointer, let path):
            let (version, value) = valueLocked(at: pointer)
            return HeadAnswer(version: version, content: .value(value, path: path))
        }
    }

    /// Answers 503 to the reads parked past `durableReadDeadlineMillis`: a disk that stalls holds
    /// the writes (their answers mean durable), but a read need not hang with them. The actions
    /// stay in flight; a later read gets them once durable. Called every second by the registry.
    /// Measured on the monotonic clock: a step of the wall clock neither expires nor holds them.
    func expireParkedReads(now: MonotonicInstant = .now) {
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
