/// A request as the session machine knows it: an id the host maps to whatever answers it (an HTTP
/// exchange, an effect's retry), so no reply closure travels through the session.
public typealias RequestID = UInt64

/// The session's request lifecycle as a state machine: events in, commands out, no threads, locks,
/// journal or HTTP.
///
/// It owns what decides a request's fate around the store: the durable and published versions and
/// the appends in flight (`Durability`), the Idempotency-Keys and the repeats waiting on them
/// (`IdempotencyLedger`), and the reads waiting for a durable head (`ParkedReads`). The host holds
/// the store, the history and the subscribers; it feeds each event in under the session's one lock
/// and runs the commands in the order given, those that touch no session state after unlocking.
///
/// `Answer` is a first answer as the ledger keeps it; `Read` a parked read as the host runs it.
///
/// ```swift
/// var machine = SessionMachine<[UInt8], String>(version: 0)
/// var commands: [SessionMachine<[UInt8], String>.Command] = []
/// machine.send(.submit(1, key: nil, head: 0, now: 0)) { commands.append($0) }  // .proceed(1)
/// machine.send(.applied(1, versions: 1...1, key: nil, inline: false)) { commands.append($0) }
/// // .append(1, epoch: 0): the host hands version 1 to the journal
/// machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: true, head: 1)) { commands.append($0) }
/// // .madeDurable(1, through: 1), .reply(1, .answer), .startEffects(1)
/// ```
public struct SessionMachine<Answer: LedgerAnswer, Read> {
    public typealias Ledger = IdempotencyLedger<Answer, RequestID>

    public private(set) var durability: Durability
    /// The Idempotency-Keys. The host writes kept refusals, snapshots and recovery through it.
    public var ledger: Ledger
    public private(set) var parked = ParkedReads<Read>()
    public private(set) var deleted = false

    public init(version: Int, ledger: Ledger = Ledger()) {
        durability = Durability(version: version)
        self.ledger = ledger
    }

    public enum Event {
        /// A request that applies actions arrives, with its Idempotency-Key (and its body's hash), at head `head`.
        case submit(RequestID, key: (name: String, bodyHash: [UInt8])?, head: Int, now: Int64)
        /// The host applied the request's actions as `versions`; `inline` when the log makes them
        /// durable as it takes them (in memory).
        case applied(RequestID, versions: ClosedRange<Int>, key: String?, inline: Bool)
        /// The journal answered the append of `versions` made in `epoch`; `head` is the store's version now.
        case appendAnswered(RequestID, versions: ClosedRange<Int>, key: String?, epoch: Int, durable: Bool, head: Int)
        /// A read whose answer shows `version` (the head); `at` when it may expire (nil: it waits on).
        case read(Read, version: Int, head: Int, at: ContinuousClock.Instant?)
        /// The registry's clock: reads parked `deadline` or longer expire.
        case tick(now: ContinuousClock.Instant, deadline: Duration)
        /// The session is deleted.
        case delete
        /// The host rebuilt the head at `version` from the journal (recovery): all of it is durable.
        case recovered(version: Int)
    }

    public enum Command {
        /// Apply the request's actions to the store (then send `.applied`).
        case proceed(RequestID)
        /// Hand the request's records to the journal; its answer comes back with `epoch`.
        case append(RequestID, epoch: Int)
        /// The request's versions through `through` are durable now: publish them, count them.
        case madeDurable(RequestID, through: Int)
        /// Answer a request.
        case reply(RequestID, Outcome)
        /// Start the effects the request's actions asked for.
        case startEffects(RequestID)
        /// The journal refused an append: rebuild the head at `to`, the durable version; what came after is gone.
        case rollBack(to: Int)
        /// Answer a parked read: the version it shows is durable.
        case answerRead(Read)
        /// Read again: its version was rolled back, the session deleted, or the head is stuck.
        case readAgain(Read)
        /// Answer a read with a refusal instead: the session is gone, the head stuck, or the read
        /// waited past the deadline.
        case refuseRead(Read, Outcome)
    }

    /// What a request is answered, as a domain value; the routes make it an HTTP response.
    public enum Outcome {
        /// The request's own answer (the host built it when it applied the actions).
        case answer
        /// The first answer of `RequestID`, still in flight when this repeat came, replayed.
        case replayOf(RequestID)
        /// The first answer kept in the ledger under this Idempotency-Key, replayed (rendered from
        /// history when it was let go). A key, not the entry: commands stay a few words long, and
        /// every POST copies them.
        case replay(key: String)
        /// The Idempotency-Key was first used with another body.
        case keyReused(String)
        /// The journal refused the actions (or one before them); nothing changed.
        case journalUnavailable
        /// The head is ahead of the journal with nothing in flight to make it durable.
        case headStuck
        /// A read waited past the deadline for its version to be durable (the disk is slow).
        case notDurableInTime
        case notFound
    }

    /// Feeds one event in; the commands it owes go to `emit`, in the order to run them (a
    /// closure, not an array: the commands of a POST cost no allocation).
    public mutating func send(_ event: Event, _ emit: (Command) -> Void) {
        switch event {
        case .submit(let request, let key, let head, let now):
            submit(request, key: key, head: head, now: now, emit)
        case .applied(let request, let versions, let key, let inline):
            guard inline else { return emit(.append(request, epoch: durability.appendStarted())) }
            becameDurable(request, versions, key: key, emit)
        case .appendAnswered(let request, let versions, let key, let epoch, let durable, let head):
            appendAnswered(request, versions, key: key, epoch: epoch, durable: durable, head: head, emit)
        case .read(let read, let version, let head, let at):
            if deleted {
                emit(.refuseRead(read, .notFound))
            } else if version <= durability.durableVersion {
                emit(.answerRead(read))
            } else if durability.isStuck(head: head) {
                emit(.refuseRead(read, .headStuck))
            } else {
                parked.park(read, version: version, at: at)
            }
        case .tick(let now, let deadline):
            for read in parked.expire(now: now, deadline: deadline) { emit(.refuseRead(read, .notDurableInTime)) }
        case .delete:
            deleted = true
            for read in parked.takeAll() { emit(.readAgain(read)) }
            // Repeats waiting on a request in flight: that request gets 404 from its completion,
            // and nothing else would answer them.
            for waiter in ledger.takeAllWaiters() { emit(.reply(waiter, .notFound)) }
        case .recovered(let version):
            durability.reset(to: version)
        }
    }

    /// Whether a read of `version` can be answered now, without parking (the common case, which
    /// the host takes without building a parked read).
    public func isDurable(_ version: Int) -> Bool { !deleted && version <= durability.durableVersion }

    /// The versions to hand to the subscribers now, nil when none.
    public mutating func publishDurable() -> ClosedRange<Int>? { durability.publishDurable() }

    /// A refusal decided on the head, answered once it is durable, waits in the parked reads.
    public mutating func park(_ read: Read, version: Int) { parked.park(read, version: version, at: nil) }

    private mutating func submit(_ request: RequestID, key: (name: String, bodyHash: [UInt8])?, head: Int, now: Int64,
                                                           _ emit: (Command) -> Void) {
        guard !deleted else { return emit(.reply(request, .notFound)) }
        guard !durability.isStuck(head: head) else { return emit(.reply(request, .headStuck)) }
        guard let key, let entry = ledger.lookup(key.name, now: now) else { return emit(.proceed(request)) }
        guard constantTimeEqual(entry.bodyHash, key.bodyHash) else { return emit(.reply(request, .keyReused(key.name))) }
        guard entry.durable else {
            // Answered with the first request's answer once it is durable (or refused with it).
            return ledger.update(key.name) { $0.waiters.append(request) }
        }
        emit(.reply(request, .replay(key: key.name)))
    }

    private mutating func appendAnswered(_ request: RequestID, _ versions: ClosedRange<Int>, key: String?, epoch: Int,
                                                                   durable: Bool, head: Int, _ emit: (Command) -> Void)
        {
        let current = durability.appendAnswered(epoch: epoch)
        guard !deleted else { return emit(.reply(request, .notFound)) }
        guard current else {
            // An earlier append failed and the head was rebuilt without this one. If it could not
            // be rebuilt, the last of these leaves a head nothing can make durable: the reads
            // parked on it read again (and are answered that).
            if durability.isStuck(head: head) { for read in parked.takeAll() { emit(.readAgain(read)) } }
            return emit(.reply(request, .journalUnavailable))
        }
        guard durable else {
            // Everything after the last durable version goes: this append and any queued behind it.
            let to = durability.durableVersion
            emit(.rollBack(to: to))
            let waiters = ledger.drop(after: to)
            for read in parked.takeAll() { emit(.readAgain(read)) }
            durability.rolledBack(to: to)
            emit(.reply(request, .journalUnavailable))
            for waiter in waiters { emit(.reply(waiter, .journalUnavailable)) }
            return
        }
        becameDurable(request, versions, key: key, emit)
        for read in parked.takeDurable(through: durability.durableVersion) { emit(.answerRead(read)) }
    }

    private mutating func becameDurable(_ request: RequestID, _ versions: ClosedRange<Int>, key: String?,
                                 _ emit: (Command) -> Void) {
        // Fresh versions, always newer than the durable one (a rollback takes the head back to it).
        if durability.madeDurable(through: versions.upperBound) { emit(.madeDurable(request, through: versions.upperBound)) }
        emit(.reply(request, .answer))
        if let key, let entry = ledger.entries[key] {
            ledger.update(key) { $0.durable = true; $0.waiters = [] }
            // The request's own answer is the first answer, even if the ledger already let go of it.
            for waiter in entry.waiters { emit(.reply(waiter, .replayOf(request))) }
        }
        emit(.startEffects(request))
    }

    /// Compares two hashes in time that depends on their length only.
    private func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

extension SessionMachine: Sendable where Answer: Sendable, Read: Sendable {}
extension SessionMachine.Event: Sendable where Answer: Sendable, Read: Sendable {}
extension SessionMachine.Command: Sendable where Answer: Sendable, Read: Sendable {}
extension SessionMachine.Outcome: Sendable where Answer: Sendable {}
extension SessionMachine.Command: Equatable where Answer: Equatable, Read: Equatable {}
extension SessionMachine.Outcome: Equatable where Answer: Equatable {}
