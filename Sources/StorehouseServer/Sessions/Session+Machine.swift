import HTTPEngine
import SessionCore
import StoreCore

/// What the machine's commands owe once the session's lock is let go, in order.
enum AfterSettling {
    case answer(ReplyTo, HTTPResponse)
    case effects([PendingEffect])
    case read(ParkedRead)
    case readAgain(ParkedRead)
    case refuse(ParkedRead, Problem)
    case log(String)
    /// An event stream's `end` event, then its end.
    case end(HTTPStream, String)
}

/// The steps owed after unlocking, sent once: not copyable.
struct Afterwards: ~Copyable {
    /// The first answer and where it goes, held apart from the list, so the one answer of a POST
    /// costs no allocation. Two optionals, not one of a struct of both: that one is too large to
    /// be set or destroyed in line, and goes through its type's metadata (~60 instructions
    /// a POST to set, ~140 to send, `scripts/instructions-per-request.sh`).
    private var firstReply: ReplyTo?
    private var firstResponse: HTTPResponse?
    private var steps: [AfterSettling] = []

    mutating func add(_ step: AfterSettling) {
        if case .answer(let reply, let response) = step {
            answer(reply, response)
        } else {
            steps.append(step)
        }
    }

    /// `add(.answer(reply, response))`, without building the step first.
    mutating func answer(_ reply: ReplyTo, _ response: consuming HTTPResponse) {
        if firstReply == nil, steps.isEmpty {
            firstReply = reply
            firstResponse = response
        } else {
            steps.append(.answer(reply, response))
        }
    }

    /// Runs the steps in order, once; called without the lock. The first answer is taken out,
    /// not copied, to be sent.
    mutating func run(_ session: Session) {
        if let reply = firstReply.take(), let response = firstResponse.take() { reply.send(response, from: session) }
        for step in steps {
            switch step {
            case .answer(let reply, let response): reply.send(response, from: session)
            case .effects(let effects): session.start(effects)
            case .read(let read): session.answerParked(read)
            case .readAgain(let read): session.readParkedAgain(read)
            case .refuse(let read, let problem): session.refuseParked(read, problem)
            case .log(let line): ServerLog.error(line)
            case .end(let stream, let reason):
                _ = stream.write(EventFrames.end(reason: reason))
                stream.finish()
            }
        }
    }
}

extension Session {
    typealias Machine = SessionMachine<HTTPResponse, RequestID>

    /// What a feed's commands said about the request the caller is running.
    struct Fed {
        /// The machine let the request apply its actions (`.proceed`).
        var proceeds = false
        /// The epoch of the append the machine asked for (`.append`).
        var epoch = 0
        /// The head was rolled back (`.rollBack`).
        var rolledBack = false
        /// The request being submitted was answered.
        var answeredSubmitted = false
    }

    /// A fresh request id.
    func requestIDLocked() -> RequestID {
        nextRequestID &+= 1
        return nextRequestID
    }

    /// Feeds `event` to the machine and runs its commands, in order, under the lock: what changes
    /// the session now, what answers clients into `after`. `pending` is the append the commands
    /// are about, if any, borrowed: its fields are read where the caller holds them (a copy is a
    /// retain and a release of each of its buffers); `submitting` the request being submitted and
    /// its reply, `key` its Idempotency-Key. The commands go to `commandBuffer`, lent to each feed
    /// and given back: a feed allocates nothing, and a command (a few words, no references) costs
    /// a store.
    @discardableResult
    func feedLocked(_ event: consuming Machine.Event, pending: borrowing PendingAppend? = nil,
                    submitting: (request: RequestID, reply: ReplyTo)? = nil, key: String? = nil,
                    into after: inout Afterwards) -> Fed {
        // A feed runs inside another's commands when a publication follows `madeDurable`: it
        // borrows the second buffer, so a session with streams allocates nothing either.
        var commands = SessionCommands<RequestID>()
        let depth = feedDepth
        feedDepth += 1
        if depth == 0 { swap(&commands, &commandBuffer) } else if depth == 1 { swap(&commands, &nestedCommandBuffer) }
        defer {
            feedDepth -= 1
            commands.removeAll()
            if depth == 0 { swap(&commands, &commandBuffer) } else if depth == 1 { swap(&commands, &nestedCommandBuffer) }
        }
        // Only a session with streams can publish: one without needs no fan-out's batches.
        let streams = !machine.subscribers.isEmpty
        machine.send(event, into: &commands)
        var fed = Fed()
        var publication: Publication?
        var fanOut: StreamFanOut? = streams ? StreamFanOut() : nil
        for position in 0..<commands.count {
            let command = commands[position]
            switch command {
            case .proceed:
                fed.proceeds = true
            case .append(_, let epoch):
                fed.epoch = epoch
            case .madeDurable(_, let version):
                // A switch over the borrowed optional binds the append without copying it.
                switch pending {
                case .some(let append): madeDurableLocked(append, through: version, into: &after)
                case .none: break
                }
            case .reply(let request, let outcome):
                // The append's answer is its request's, and the first answer its repeats replay.
                var reply: ReplyTo?, answer: HTTPResponse?
                switch pending {
                case .some(let append):
                    if request == append.request { reply = append.reply }
                    answer = append.answer
                case .none: break
                }
                if reply == nil {
                    if let submitting, request == submitting.request {
                        fed.answeredSubmitted = true
                        reply = submitting.reply
                    } else {
                        reply = waitingRepeats.removeValue(forKey: request)
                    }
                }
                guard let reply else { break }
                after.answer(reply, responseLocked(outcome, answer: answer, key: key))
            case .startEffects:
                switch pending {
                case .some(let append) where !append.effects.isEmpty: after.add(.effects(append.effects))
                default: break
                }
            case .rollBack(let version):
                fed.rolledBack = true
                if rollbackLocked(to: version) { feedLocked(.rebuilt(now: context.now()), into: &after) }
            case .answerRead(let id):
                if let read = parkedReads.removeValue(forKey: id) { after.add(.read(read)) }
            case .readAgain(let id):
                if let read = parkedReads.removeValue(forKey: id) { after.add(.readAgain(read)) }
            case .refuseRead(let id, let outcome):
                if let read = parkedReads.removeValue(forKey: id), let problem = outcome.problem(key: key) { after.add(.refuse(read, problem)) }
            case .writeSnapshot(let version):
                writeSnapshotLocked(at: version)
            case .frames, .publish, .reset, .sendSnapshot, .holdSnapshot, .sendHeldSnapshot, .keepAlive, .endStream:
                runSubscriberCommandLocked(command, publication: &publication, fanOut: &fanOut, into: &after)
            }
        }
        return fed
    }

    /// `append`'s versions through `version` are durable (`.madeDurable`): publishes them, counts them.
    private func madeDurableLocked(_ append: borrowing PendingAppend, through version: Int, into after: inout Afterwards) {
        if !append.carriedRefusals.isEmpty { refusalsToJournal.carrierDurable(append.carriedRefusals) }
        publishLocked(through: version, outputs: append.outputs, into: &after)
        updatedAt = max(updatedAt, append.at)
        lifetime.touch(append.at)  // an applied action, an effect's included, restarts the idle clock
        let count = append.last - append.first + 1
        if let slot = append.source == .client ? clientActionSlot : effectActionSlot {
            context.metrics.recordActions(slot: slot, count: count)
        } else {
            context.metrics.recordActions(kind: kind.name, source: append.source.rawValue, count: count)
        }
    }

    /// Parks `read` until `version` is durable (or a rollback sends it back), under a fresh id.
    func parkLocked(_ read: ParkedRead, version: Int) {
        let id = requestIDLocked()
        parkedReads[id] = read
        machine.park(id, version: version)
    }

    /// The HTTP answer of an outcome: the request's own, a first answer replayed, or a problem.
    private func responseLocked(_ outcome: SessionOutcome, answer: HTTPResponse?, key: String?) -> HTTPResponse {
        switch outcome {
        case .answer:
            if let answer { return answer }
        case .replayOf:
            // The request's own answer is the first answer, even if the ledger already let go of it.
            if let answer { return Self.replayed(answer) }
        case .replay:
            if let key, let entry = machine.ledger.entries[key] { return replayedAnswerLocked(entry) }
        default:
            if let problem = outcome.problem(key: key) { return problem.response() }
        }
        // The machine names only requests whose answer is at hand; were one not, nothing was applied for it.
        return SessionProblems.journalUnavailable.response()
    }
}
