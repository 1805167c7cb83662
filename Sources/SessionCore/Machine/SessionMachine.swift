/// A request as the session machine knows it: an id the host maps to whatever answers it (an HTTP
/// exchange, an effect's retry), so no reply closure travels through the session.
public typealias RequestID = UInt64

/// The session's request lifecycle as a state machine: events in, commands out, no threads, locks,
/// journal or HTTP.
///
/// It owns what decides a request's fate around the store: the durable and published versions and
/// the appends in flight (`Durability`), the Idempotency-Keys and the repeats waiting on them
/// (`IdempotencyLedger`), the reads waiting for a durable head (`ParkedReads`), which event stream
/// is sent what and when (`Subscribers`), and when the journal gets a snapshot (`SnapshotSchedule`).
/// The host holds the store, the history and the streams' bytes; it feeds each event in under the
/// session's one lock and runs the commands in the order given, those that touch no session state
/// after unlocking.
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
    /// The event streams: what each was sent, and when (`Subscribers`).
    public private(set) var subscribers = Subscribers()
    /// When the journal gets a snapshot (`SnapshotSchedule`).
    public private(set) var snapshots: SnapshotSchedule

    public init(version: Int, ledger: Ledger = Ledger(), snapshots: SnapshotSchedule = SnapshotSchedule(every: 1_000, bytes: 64 << 20)) {
        durability = Durability(version: version)
        self.ledger = ledger
        self.snapshots = snapshots
    }

    public enum Event {
        /// A request that applies actions arrives, with its Idempotency-Key (and its body's hash), at head `head`.
        case submit(RequestID, key: (name: String, bodyHash: [UInt8])?, head: Int, now: Int64)
        /// The host applied the request's actions as `versions`, weighing `weight` bytes; `inline`
        /// when the log makes them durable as it takes them (in memory).
        case applied(RequestID, versions: ClosedRange<Int>, key: String?, inline: Bool, weight: Int = 0)
        /// The journal answered the append of `versions` made in `epoch`; `head` is the store's version now.
        case appendAnswered(RequestID, versions: ClosedRange<Int>, key: String?, epoch: Int, durable: Bool, head: Int)
        /// A read whose answer shows `version` (the head); `at` when it may expire (nil: it waits on).
        case read(Read, version: Int, head: Int, at: MonotonicInstant?)
        /// The registry's clock: reads parked `deadline` or longer expire.
        case tick(now: MonotonicInstant, deadline: Duration)
        /// The session is deleted: what is durable goes out, then every stream ends.
        case delete(now: Int64)
        /// The host rebuilt the head at `version` from the journal (recovery): all of it is durable.
        case recovered(version: Int)
        /// The host rebuilt the head at the durable version, as `.rollBack` asked.
        case rebuilt(now: Int64)
        /// Versions became durable: `base` is the kept state a journal snapshot would be of, with
        /// `droppedBytes` gone from a window of `byteLimit` bytes, the last snapshot `lastSnapshotBytes` long.
        case snapshotBase(Int?, droppedBytes: Int, byteLimit: Int, lastSnapshotBytes: Int)
        /// A snapshot at `version` reached the journal outside the schedule (recovery's base, an import).
        case wroteSnapshot(at: Int)
        /// A stream subscribes at head `head`: resumed through `resumedThrough` (the host wrote it
        /// the changes after its `Last-Event-ID`), or nil to start from a snapshot.
        case subscribe(SubscriberID, resumedThrough: Int?, head: Int, now: Int64)
        /// A stream closed.
        case unsubscribe(SubscriberID)
        /// Hand what is durable and not yet published to the subscribers (the host's fan-out).
        case publish(head: Int, now: Int64)
        /// A subscriber fell too far behind (`.publish` found it over its bound).
        case slow(SubscriberID, now: Int64)
        /// A reset subscriber's stream drained.
        case drained(SubscriberID, head: Int, now: Int64)
        /// The heartbeat clock: subscribers silent `interval` milliseconds or more get a keep-alive.
        case heartbeat(now: Int64, interval: Int64)
        /// A shutdown asks a stream to end: once every change the session applied went out.
        case drain(SubscriberID, head: Int, now: Int64)
    }

    public typealias Command = SessionCommand<Read>
    public typealias Outcome = SessionOutcome

    /// Feeds one event in; the commands it owes go to `sink`, in the order to run them. The event
    /// is consumed, not copied.
    public mutating func send<Sink: SessionCommandSink>(_ event: consuming Event, into sink: inout Sink) where Sink.Read == Read {
        switch consume event {
        case .submit(let request, let key, let head, let now):
            submit(request, key: key, head: head, now: now, &sink)
        case .applied(let request, let versions, let key, let inline, let weight):
            snapshots.applied(weight: weight)
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
        case .delete(let now):
            publishDurable(now: now, &sink)
            deleted = true
            for read in parked.takeAll() { sink.emit(.readAgain(read)) }
            // Repeats waiting on a request in flight: that request gets 404 from its completion,
            // and nothing else would answer them.
            for waiter in ledger.takeAllWaiters() { sink.emit(.reply(waiter, .notFound)) }
            for id in subscribers.removeAll() { sink.emit(.endStream(id, .deleted)) }
        case .recovered(let version):
            durability.reset(to: version)
        case .rebuilt(let now):
            rebuilt(now: now, &sink)
        case .snapshotBase(let base, let droppedBytes, let byteLimit, let lastSnapshotBytes):
            guard let base, !deleted,
                  snapshots.take(base: base, droppedBytes: droppedBytes, byteLimit: byteLimit, lastSnapshotBytes: lastSnapshotBytes) else { return }
            sink.emit(.writeSnapshot(version: base))
        case .wroteSnapshot(let version):
            snapshots.wrote(at: version)
        case .subscribe(let id, let resumedThrough, let head, let now):
            guard !deleted else { return sink.emit(.endStream(id, .deleted)) }
            subscribers.add(.init(id: id, lastVersion: resumedThrough ?? durability.durableVersion, lastWrite: now))
            if resumedThrough == nil { snapshot(at: subscribers.count - 1, head: head, replacingQueue: false, &sink) }
        case .unsubscribe(let id):
            subscribers.remove(id)
        case .publish(let head, let now):
            publishDurable(now: now, &sink)
            endSettledStreams(head: head, now: now, &sink)
        case .slow(let id, let now):
            guard var subscriber = subscribers[id] else { return }
            subscriber.awaitingSnapshot = true
            subscriber.lastWrite = now
            subscribers[id] = subscriber
            sink.emit(.reset(id))
        case .drained(let id, let head, let now):
            guard !deleted, let position = subscribers.position(of: id), subscribers[at: position].awaitingSnapshot else { return }
            subscribers[at: position].awaitingSnapshot = false
            subscribers[at: position].lastWrite = now
            snapshot(at: position, head: head, replacingQueue: false, &sink)
        case .heartbeat(let now, let interval):
            for position in subscribers.all.indices where now - subscribers[at: position].lastWrite >= interval {
                subscribers[at: position].lastWrite = now
                sink.emit(.keepAlive(subscribers[at: position].id))
            }
        case .drain(let id, let head, let now):
            // Every change the session applied goes out before `end`: what is durable now (a
            // publication may be waiting on the host's fan-out), and what is still on its way to
            // the journal, whose answer the client gets during the drain (the stream ends then).
            publishDurable(now: now, &sink)
            guard subscribers[id] != nil else { return }
            guard head > durability.durableVersion else {
                subscribers.remove(id)
                return sink.emit(.endStream(id, .shutdown))
            }
            subscribers.endingWhenSettled.append(id)
        }
    }

    /// Sends the subscriber at `position` a snapshot of the head, or, when the head is not durable
    /// yet, holds it for the publication that makes it so: a crash could still take that version
    /// back, and a client that had seen it would go on (or resume, by `Last-Event-ID`) from a
    /// state the session never had. `replacingQueue` applies to one sent now (a held one follows
    /// the queue).
    private mutating func snapshot<Sink: SessionCommandSink>(at position: Int, head: Int, replacingQueue: Bool,
                                                             _ sink: inout Sink) where Sink.Read == Read {
        let id = subscribers[at: position].id
        guard head <= durability.durableVersion else {
            subscribers[at: position].heldSnapshot = head
            return sink.emit(.holdSnapshot(id))
        }
        subscribers[at: position].heldSnapshot = nil
        subscribers[at: position].lastVersion = head
        sink.emit(.sendSnapshot(id, replacingQueue: replacingQueue))
    }

    /// Hands the versions after the published one through the durable one to every subscriber:
    /// `.frames` once, then `.publish` for each subscriber behind. Every publication runs under
    /// the host's lock, oldest first, so a subscriber gets each version once and in order.
    private mutating func publishDurable<Sink: SessionCommandSink>(now: Int64, _ sink: inout Sink) where Sink.Read == Read {
        guard let versions = durability.publishDurable(), !deleted, !subscribers.isEmpty else { return }
        sink.emit(.frames(versions))
        for position in subscribers.all.indices where !subscribers[at: position].awaitingSnapshot {
            let id = subscribers[at: position].id
            if let held = subscribers[at: position].heldSnapshot {
                guard held <= versions.upperBound else { continue }
                // Its version is durable now; it stands in for every change up to it.
                subscribers[at: position].heldSnapshot = nil
                subscribers[at: position].lastVersion = held
                subscribers[at: position].lastWrite = now
                sink.emit(.sendHeldSnapshot(id))
            }
            let last = subscribers[at: position].lastVersion
            guard last < versions.upperBound else { continue }
            subscribers[at: position].lastVersion = versions.upperBound
            subscribers[at: position].lastWrite = now
            sink.emit(.publish(id, after: last))
        }
    }

    /// Ends the streams a shutdown left open once nothing the session applied is waiting for the
    /// journal (made durable and published, or rolled back).
    private mutating func endSettledStreams<Sink: SessionCommandSink>(head: Int, now: Int64, _ sink: inout Sink) where Sink.Read == Read {
        guard !subscribers.endingWhenSettled.isEmpty, head == durability.durableVersion else { return }
        publishDurable(now: now, &sink)
        for id in subscribers.endingWhenSettled {
            subscribers.remove(id)
            sink.emit(.endStream(id, .shutdown))
        }
    }

    /// After a rollback the head is the durable version again. A held snapshot is of a version
    /// that is gone: the head now goes instead; one sent changes past it starts over from the head.
    /// A subscriber awaiting its snapshot gets the head as it is when its stream drains.
    private mutating func rebuilt<Sink: SessionCommandSink>(now: Int64, _ sink: inout Sink) where Sink.Read == Read {
        let head = durability.durableVersion
        for position in subscribers.all.indices where !subscribers[at: position].awaitingSnapshot {
            if subscribers[at: position].heldSnapshot != nil {
                snapshot(at: position, head: head, replacingQueue: false, &sink)
            } else if subscribers[at: position].lastVersion > head {
                snapshot(at: position, head: head, replacingQueue: true, &sink)
            }
        }
        endSettledStreams(head: head, now: now, &sink)
    }

    /// Whether `.submit` of a request without an Idempotency-Key at head `head` would say
    /// `.proceed` and nothing else: then the host may apply it without that feed, and a POST
    /// is one feed (`.applied`). The same rule as `.submit`'s, read without changing anything.
    public func admitsAtOnce(head: Int) -> Bool { !deleted && !durability.isStuck(head: head) }

    /// Whether a read of `version` can be answered now, without parking (the common case, which
    /// the host takes without building a parked read).
    public func isDurable(_ version: Int) -> Bool { !deleted && version <= durability.durableVersion }

    /// A refusal decided on the head, answered once it is durable, waits in the parked reads.
    public mutating func park(_ read: Read, version: Int) { parked.park(read, version: version, at: nil) }

    private mutating func submit<Sink: SessionCommandSink>(_ request: RequestID, key: (name: String, bodyHash: [UInt8])?, head: Int, now: Int64,
                                                           _ sink: inout Sink) where Sink.Read == Read {
        guard admitsAtOnce(head: head) else { return sink.emit(.reply(request, deleted ? .notFound : .headStuck)) }
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
        if durability.madeDurable(through: versions.upperBound) {
            // With no stream to send them to, they are published as they are made durable.
            if subscribers.isEmpty { _ = durability.publishDurable() }
            sink.emit(.madeDurable(request, through: versions.upperBound))
        }
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
