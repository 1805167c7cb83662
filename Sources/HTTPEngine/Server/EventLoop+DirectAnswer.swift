#if canImport(Glibc)
import Glibc
#endif
import Synchronization

extension EventLoop {
    // MARK: the answering thread

    /// Writes `response` to the socket from the calling thread if the loop armed this request;
    /// false when the loop must deliver it (not armed, or already taken back).
    func answerDirectly(_ ref: ConnectionRef, sequence: UInt64, response: HTTPResponse, framing: AnswerFraming) -> Bool {
        let c = ref.connection
        var word = c.handoff.load(ordering: .sequentiallyConsistent)
        while true {
            guard word >> 4 == sequence & (UInt64.max >> 4), word & DirectAnswer.stateMask == DirectAnswer.armed else { return false }
            let (won, current) = c.handoff.compareExchange(expected: word, desired: word & ~DirectAnswer.stateMask | DirectAnswer.sending,
                                                           ordering: .sequentiallyConsistent)
            if won { break }
            word = current
        }
        // Counted before the bytes leave: a client that has the answer sees the count.
        core.directAnswers.add(1, ordering: .relaxed)
        let close = !framing.keepAlive || draining.load(ordering: .sequentiallyConsistent)
        let answer = ResponseEncoder.encode(status: response.status, headers: response.headers, headersChecked: response.headersChecked,
                                            body: response.body,
                                            omitBody: framing.omitBody, close: close, http10KeepAlive: framing.http10 && !close,
                                            dateLine: DirectAnswer.dateLine())
        let closes = close || answer.userClose
        let sent = Self.send(c.fd, answer.head, answer.body)
        let total = answer.head.count + (answer.body?.count ?? 0)
        guard sent == total else {
            // The socket is full or failed: the loop writes the rest (and meets the error) in order.
            var rest = OutboundQueue()
            rest.append(answer.head)
            if let body = answer.body { rest.append(body) }
            rest.consume(max(0, sent))
            core.directAnswerRests.add(1, ordering: .relaxed)
            c.handoff.store(0, ordering: .sequentiallyConsistent)
            enqueue(.directAnswerRest(ref, sequence, rest, closes))
            return true
        }
        word = c.handoff.load(ordering: .sequentiallyConsistent)
        while true {
            let desired = word & ~DirectAnswer.stateMask | DirectAnswer.sent | (closes ? DirectAnswer.close : 0)
            let (done, current) = c.handoff.compareExchange(expected: word, desired: desired, ordering: .sequentiallyConsistent)
            if done { break }
            word = current
        }
        // A close is the loop's to make; a nudge means it waits on this answer; and a loop that
        // began draining after `close` was decided above may be waiting for this connection to
        // go quiet (it sets `draining` before it looks at the connections, so one of the two
        // sides sees the other).
        if closes || word & DirectAnswer.nudge != 0 || draining.load(ordering: .sequentiallyConsistent) {
            enqueue(.directAnswered(ref))
        }
        return true
    }

    /// One `send` (head and body in one `sendmsg` when apart), retried on EINTR; the bytes the
    /// socket took, or -1.
    private static func send(_ fd: Int32, _ head: [UInt8], _ body: [UInt8]?) -> Int {
        while true {
            let sent: Int
            if let body {
                sent = head.withUnsafeBytes { h in
                    body.withUnsafeBytes { b in
                        var iov = (iovec(iov_base: UnsafeMutableRawPointer(mutating: h.baseAddress), iov_len: h.count),
                                   iovec(iov_base: UnsafeMutableRawPointer(mutating: b.baseAddress), iov_len: b.count))
                        return withUnsafeMutableBytes(of: &iov) { iovBytes in
                            var message = msghdr()
                            message.msg_iov = iovBytes.baseAddress?.assumingMemoryBound(to: iovec.self)
                            message.msg_iovlen = 2
                            return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                        }
                    }
                }
            } else {
                sent = head.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            if sent < 0 && errno == EINTR { continue }
            return sent
        }
    }

    // MARK: the loop

    /// Lends the socket for the current request's answer when nothing else is to be written to it
    /// first. Called where the loop lets go of a connection (the end of `service`).
    func armDirectAnswer(_ c: Connection) {
        guard c.state.isAwaiting, !c.state.facts.lent, c.outbound.isEmpty, core.configuration.directAnswers else { return }
        c.state.facts.lent = true
        let waiting = !c.inbound.isEmpty || c.state.facts.readClosed
        c.handoff.store(DirectAnswer.word(sequence: c.state.sequence, state: DirectAnswer.armed) | (waiting ? DirectAnswer.nudge : 0),
                        ordering: .sequentiallyConsistent)
    }

    /// Looks at a lent socket: when its answer was sent, finishes the exchange (the caller runs
    /// `service`) and returns true; otherwise, with `waiting`, asks the sender for a command.
    func finishDirectAnswerIfSent(_ c: Connection, waiting: Bool) -> Bool {
        var word = c.handoff.load(ordering: .sequentiallyConsistent)
        while true {
            if word & DirectAnswer.stateMask == DirectAnswer.sent {
                c.handoff.store(0, ordering: .sequentiallyConsistent)
                c.state.facts.lent = false
                c.state.answered(closes: word & DirectAnswer.close != 0)
                return true
            }
            guard waiting, word & DirectAnswer.nudge == 0, word & DirectAnswer.stateMask != 0 else { return false }
            let (set, current) = c.handoff.compareExchange(expected: word, desired: word | DirectAnswer.nudge, ordering: .sequentiallyConsistent)
            if set { return false }
            word = current
        }
    }

    /// Takes the socket back before the loop answers, writes or closes itself. An answer being
    /// written right now is waited for (a few microseconds: the socket does not block): closing
    /// the descriptor under it could send it to the next connection given that number.
    func takeBackDirectAnswer(_ c: Connection) {
        guard c.state.facts.lent else { return }
        var word = c.handoff.load(ordering: .sequentiallyConsistent)
        while true {
            switch word & DirectAnswer.stateMask {
            case DirectAnswer.sending:
                sched_yield()
                word = c.handoff.load(ordering: .sequentiallyConsistent)
                continue
            case DirectAnswer.armed:
                let (taken, current) = c.handoff.compareExchange(expected: word, desired: 0, ordering: .sequentiallyConsistent)
                if !taken { word = current; continue }
            default:
                // Sent (the caller is closing; the exchange is over) or already handed back.
                c.handoff.store(0, ordering: .sequentiallyConsistent)
            }
            c.state.facts.lent = false
            return
        }
    }

    /// The rest of an answer the socket did not take whole, queued in order before anything else.
    func finishDirectAnswer(_ c: Connection, sequence: UInt64, rest: OutboundQueue, close: Bool) {
        guard c.state.facts.lent, c.state.awaitedFraming(sequence) != nil else { return }
        c.state.facts.lent = false
        c.state.answered(closes: close)
        for segment in rest.segments.indices {
            let bytes = rest.segments[segment]
            c.outbound.append(segment == 0 ? Array(bytes[rest.offset...]) : bytes)
        }
        service(c)
    }
}
