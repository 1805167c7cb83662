import HTTPEngine
import SessionCore
import StoreCore

/// What the machine's commands owe once the session's lock is let go, in order.
enum AfterSettling {
    case answer(@Sendable (HTTPResponse) -> Void, HTTPResponse)
    case effects([PendingEffect])
    case read(ParkedRead)
    case readAgain(ParkedRead)
    case refuse(ParkedRead, Problem)
    case log(String)
}

/// The steps owed after unlocking. The first answer is held apart from the list, so the one
/// answer of a POST costs no allocation.
struct Afterwards {
    private var first: (reply: @Sendable (HTTPResponse) -> Void, response: HTTPResponse)?
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
        if let first { first.reply(first.response) }
        for step in steps {
            switch step {
            case .answer(let reply, let response): reply(response)
            case .effects(let effects): session.start(effects)
            case .read(let read): read.answer()
            case .readAgain(let read): read.again()
            case .refuse(let read, let problem): read.refuse?(problem)
            case .log(let line): ServerLog.error(line)
            }
        }
    }
}

extension Session {
    typealias Machine = SessionMachine<HTTPResponse, ParkedRead>

    /// A fresh request id.
    func requestIDLocked() -> RequestID {
        nextRequestID &+= 1
        return nextRequestID
    }

    /// Feeds `event` to the machine and returns its commands, in a buffer `runLocked` gives back.
    func feedLocked(_ event: Machine.Event) -> [Machine.Command] {
        var commands: [Machine.Command] = []
        swap(&commands, &commandBuffer)
        machine.send(event) { commands.append($0) }
        return commands
    }

    /// Runs the machine's commands under the lock: what changes the session now, what answers
    /// clients into `after`. `pending` is the append the commands are about, if any.
    func runLocked(_ commands: inout [Machine.Command], pending: PendingAppend?, into after: inout Afterwards) {
        for command in commands {
            switch command {
            case .proceed, .append:
                // `submit` reads these itself: they continue the request it is running.
                break
            case .madeDurable(_, let version):
                guard let pending else { break }
                if !pending.carriedRefusals.isEmpty {
                    // A set: with the cache's 1,000 refusals pending, a list's `contains` made this a
                    // million comparisons under the session's lock.
                    let carried = Set(pending.carriedRefusals)
                    refusalsToJournal.removeAll(where: carried.contains)
                }
                publishLocked(through: version, outputs: pending.outputs)
                updatedAt = max(updatedAt, pending.at)
                lifetime.touch(pending.at)  // an applied action, an effect's included, restarts the idle clock
                context.metrics.recordActions(kind: kind.name, source: pending.source.rawValue, count: pending.last - pending.first + 1)
            case .reply(let request, let outcome):
                let reply = request == pending?.request ? pending?.reply : waitingRepeats.removeValue(forKey: request)
                guard let reply else { break }
                after.add(.answer(reply, responseLocked(outcome, pending: pending)))
            case .startEffects:
                if let pending, !pending.effects.isEmpty { after.add(.effects(pending.effects)) }
            case .rollBack(let version):
                rollbackLocked(to: version)
            case .answerRead(let read):
                after.add(.read(read))
            case .readAgain(let read):
                after.add(.readAgain(read))
            case .refuseRead(let read, let outcome):
                if let problem = outcome.problem { after.add(.refuse(read, problem)) }
            }
        }
        commands.removeAll(keepingCapacity: true)
        swap(&commands, &commandBuffer)
    }

    /// The HTTP answer of an outcome: the request's own, a first answer replayed, or a problem.
    private func responseLocked(_ outcome: Machine.Outcome, pending: PendingAppend?) -> HTTPResponse {
        switch outcome {
        case .answer:
            if let pending { return pending.answer }
        case .replayOf:
            // The request's own answer is the first answer, even if the ledger already let go of it.
            if let pending { return Self.replayed(pending.answer) }
        case .replay(let key):
            if let entry = machine.ledger.entries[key] { return replayedAnswerLocked(entry) }
        default:
            if let problem = outcome.problem { return problem.response() }
        }
        // The machine names only requests whose answer is at hand; were one not, nothing was applied for it.
        return SessionProblems.journalUnavailable.response()
    }
}
