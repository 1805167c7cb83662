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

/// The steps owed after unlocking. The first answer is held apart from the list, so the one
/// answer of a POST costs no allocation.
struct Afterwards {
    private var first: (reply: ReplyTo, response: HTTPResponse)?
    private var steps: [AfterSettling] = []

    mutating func add(_ step: AfterSettling) {
        if case .answer(let reply, let response) = step, first == nil, steps.isEmpty {
            first = (reply, response)
        } else {
            steps.append(step)
        }
    }

    /// Runs the steps in order; called without the lock.
    func run(_ session: Session) {
        if let first { first.reply.send(first.response, from: session) }
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
    /// are about, if any; `submitting` the request being submitted and its reply, `key` its
    /// Idempotency-Key. The commands
    /// go to `commandBuffer`, lent to each feed and given back: a feed allocates nothing, and a
    /// command (a few words, no references) costs a store.
    @discardableResult
    func feedLocked(_ event: consuming Machine.Event, pending: inout PendingAppend?,
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
                // The append's fields are read in place (`pending?.…` of an `inout`): binding it would copy them all.
                guard let at = pending?.at, let outputs = pending?.outputs else { break }
                if let carried = pending?.carriedRefusals, !carried.isEmpty { refusalsToJournal.carrierDurable(carried) }
                publishLocked(through: version, outputs: outputs, into: &after)
                updatedAt = max(updatedAt, at)
                lifetime.touch(at)  // an applied action, an effect's included, restarts the idle clock
                let count = (pending?.last ?? 0) - (pending?.first ?? 0) + 1
                let source = pending?.source ?? .client
                if let slot = source == .client ? clientActionSlot : effectActionSlot {
                    context.metrics.recordActions(slot: slot, count: count)
                } else {
                    context.metrics.recordActions(kind: kind.name, source: source.rawValue, count: count)
                }
            case .reply(let request, let outcome):
                let reply: ReplyTo?
                if request == pending?.request {
                    reply = pending?.reply
                } else if let submitting, request == submitting.request {
                    fed.answeredSubmitted = true
                    reply = submitting.reply
                } else {
                    reply = waitingRepeats.removeValue(forKey: request)
                }
                guard let reply else { break }
                after.add(.answer(reply, responseLocked(outcome, answer: pending?.answer, key: key)))
            case .startEffects:
                if let effects = pending?.effects, !effects.isEmpty { after.add(.effects(effects)) }
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

    /// `feedLocked` for an event about no append of this feed's caller.
    @discardableResult
    func feedLocked(_ event: consuming Machine.Event, submitting: (request: RequestID, reply: ReplyTo)? = nil, key: String? = nil,
                    into after: inout Afterwards) -> Fed {
        var none: PendingAppend?
        return feedLocked(event, pending: &none, submitting: submitting, key: key, into: &after)
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
