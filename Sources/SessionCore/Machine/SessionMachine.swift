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
/// `Answer` is a first answer as the ledger keeps it; `Read` names a parked read (the server's
/// hosts use a request id and keep what answers it).
///
/// ```swift
/// var machine = SessionMachine<[UInt8], RequestID>(version: 0)
/// var commands = SessionCommands<RequestID>()
/// machine.send(.submit(1, key: nil, head: 0, now: 0), into: &commands)  // .proceed(1)
/// machine.send(.applied(1, versions: 1...1, key: nil, inline: false), into: &commands)
/// // .append(1, epoch: 0): the host hands version 1 to the journal
/// machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: true, head: 1), into: &commands)
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

    public typealias Command = SessionCommand<Read>
    public typealias Outcome = SessionOutcome

    /// Feeds one event in; the commands it owes go to `sink`, in the order to run them. The event
    /// is consumed, not copied.
    public mutating func send<Sink: SessionCommandSink>(_ event: consuming Event, into sink: inout Sink) where Sink.Read == Read {
        switch consume event {
        case .submit(let request, let key, let head, let now):
            submit(request, key: key, head: head, now: now, &sink)
        case .applied(let request, let versions, let key, let inline):
            guard inline else { return sink.emit(.append(request, epoch: durability.appendStarted())) }
            becameDurable(request, versions, key: key, &sink)
        case .appendAnswered(let request, let versions, let key, let epoch, let durable, let head):
            appendAnswered(request, versions, key: key, epoch: epoch, durable: durable, head: head, &sink)
        case .read(let read, let version, let head, let at):
            if deleted {
                sink.emit(.refuseRead(read, .notFound))
            } else if version <= durability.durableVersion {
                sink.emit(.answerRead(read))
            } else if durability.isStuck(head: head) {
                sink.emit(.refuseRead(read, .headStuck))
            } else {
                parked.park(read, version: version, at: at)
            }
        case .tick(let now, let deadline):
            for read in parked.expire(now: now, deadline: deadline) { sink.emit(.refuseRead(read, .notDurableInTime)) }
        case .delete:
            deleted = true
            for read in parked.takeAll() { sink.emit(.readAgain(read)) }
            // Repeats waiting on a request in flight: that request gets 404 from its completion,
            // and nothing else would answer them.
            for waiter in ledger.takeAllWaiters() { sink.emit(.reply(waiter, .notFound)) }
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

    private mutating func submit<Sink: SessionCommandSink>(_ request: RequestID, key: (name: String, bodyHash: [UInt8])?, head: Int, now: Int64,
                                                           _ sink: inout Sink) where Sink.Read == Read {
        guard !deleted else { return sink.emit(.reply(request, .notFound)) }
        guard !durability.isStuck(head: head) else { return sink.emit(.reply(request, .headStuck)) }
        guard let key, let entry = ledger.lookup(key.name, now: now) else { return sink.emit(.proceed(request)) }
        guard constantTimeEqual(entry.bodyHash, key.bodyHash) else { return sink.emit(.reply(request, .keyReused)) }
        guard entry.durable else {
            // Answered with the first request's answer once it is durable (or refused with it).
            return ledger.update(key.name) { $0.waiters.append(request) }
        }
        sink.emit(.reply(request, .replay))
    }

    private mutating func appendAnswered<Sink: SessionCommandSink>(_ request: RequestID, _ versions: ClosedRange<Int>, key: String?, epoch: Int,
                                                                   durable: Bool, head: Int, _ sink: inout Sink) where Sink.Read == Read
        {
        let current = durability.appendAnswered(epoch: epoch)
        guard !deleted else { return sink.emit(.reply(request, .notFound)) }
        guard current else {
            // An earlier append failed and the head was rebuilt without this one. If it could not
            // be rebuilt, the last of these leaves a head nothing can make durable: the reads
            // parked on it read again (and are answered that).
            if durability.isStuck(head: head) { for read in parked.takeAll() { sink.emit(.readAgain(read)) } }
            return sink.emit(.reply(request, .journalUnavailable))
        }
        guard durable else {
            // Everything after the last durable version goes: this append and any queued behind it.
            let to = durability.durableVersion
            sink.emit(.rollBack(to: to))
            let waiters = ledger.drop(after: to)
            for read in parked.takeAll() { sink.emit(.readAgain(read)) }
            durability.rolledBack(to: to)
            sink.emit(.reply(request, .journalUnavailable))
            for waiter in waiters { sink.emit(.reply(waiter, .journalUnavailable)) }
            return
        }
        becameDurable(request, versions, key: key, &sink)
        for read in parked.takeDurable(through: durability.durableVersion) { sink.emit(.answerRead(read)) }
    }

    private mutating func becameDurable<Sink: SessionCommandSink>(_ request: RequestID, _ versions: ClosedRange<Int>, key: String?,
                                 _ sink: inout Sink) where Sink.Read == Read {
        // Fresh versions, always newer than the durable one (a rollback takes the head back to it).
        if durability.madeDurable(through: versions.upperBound) { sink.emit(.madeDurable(request, through: versions.upperBound)) }
        sink.emit(.reply(request, .answer))
        if let key, let entry = ledger.entries[key] {
            ledger.update(key) { $0.durable = true; $0.waiters = [] }
            // The request's own answer is the first answer, even if the ledger already let go of it.
            for waiter in entry.waiters { sink.emit(.reply(waiter, .replayOf(request))) }
        }
        sink.emit(.startEffects(request))
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
