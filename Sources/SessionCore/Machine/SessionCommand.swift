/// What the session machine tells its host to do, in the order to do it.
///
/// Every payload is a number (a request id, a version, an epoch) or a read as the host names it:
/// with `Read` a request id the commands are plain words, copied without reference counting,
/// and the host looks up what each id stands for (an HTTP exchange, a reply it holds).
public enum SessionCommand<Read> {
    /// Apply the request's actions to the store (then send `.applied`).
    case proceed(RequestID)
    /// Hand the request's records to the journal; its answer comes back with `epoch`.
    case append(RequestID, epoch: Int)
    /// The request's versions through `through` are durable now: publish them, count them.
    case madeDurable(RequestID, through: Int)
    /// Answer a request.
    case reply(RequestID, SessionOutcome)
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
    case refuseRead(Read, SessionOutcome)
    /// Send the subscriber a snapshot of the head (durable), in place of what its stream has
    /// queued when `replacingQueue`; changes go on from it.
    case sendSnapshot(SubscriberID, replacingQueue: Bool)
    /// Take a snapshot of the head (not durable yet) and keep it for the subscriber: it goes out
    /// with `.sendHeldSnapshot` once its version is durable.
    case holdSnapshot(SubscriberID)
    /// Send the subscriber the snapshot held for it.
    case sendHeldSnapshot(SubscriberID)
    /// Encode the changes of these versions (and their outputs) once, for the `.publish` that follow.
    case frames(ClosedRange<Int>)
    /// Write the subscriber the framed changes after version `after`. A write past its bound, or
    /// changes no longer in the history, make it slow: send `.slow`.
    case publish(SubscriberID, after: Int)
    /// Drop what the subscriber's stream has queued; send `.drained` once it is empty.
    case reset(SubscriberID)
    /// Write the subscriber a keep-alive comment.
    case keepAlive(SubscriberID)
    /// End the subscriber's stream (`end` event) and forget it.
    case endStream(SubscriberID, StreamEnd)
    /// Hand the journal a snapshot of the kept state at `version`.
    case writeSnapshot(version: Int)
}

/// Why the machine ends a stream.
public enum StreamEnd: Sendable, Equatable {
    /// The server shuts down, and every change the session applied went out.
    case shutdown
    /// The session is deleted (by its owner, or as it expired).
    case deleted
}

/// What a request is answered, as a domain value; the routes make it an HTTP response.
public enum SessionOutcome: Sendable, Equatable {
    /// The request's own answer (the host built it when it applied the actions).
    case answer
    /// The first answer of `RequestID`, still in flight when this repeat came, replayed.
    case replayOf(RequestID)
    /// The first answer kept in the ledger under the request's own Idempotency-Key, replayed
    /// (rendered from history when it was let go). The host knows the key it submitted.
    case replay
    /// The request's Idempotency-Key was first used with another body.
    case keyReused
    /// The journal refused the actions (or one before them); nothing changed.
    case journalUnavailable
    /// The head is ahead of the journal with nothing in flight to make it durable.
    case headStuck
    /// A read waited past the deadline for its version to be durable (the disk is slow).
    case notDurableInTime
    case notFound
}

/// Where a feed's commands go. The machine is generic over it, so a host's sink is specialized
/// into the machine and a command costs a store, not a call through a closure.
public protocol SessionCommandSink<Read> {
    associatedtype Read
    mutating func emit(_ command: SessionCommand<Read>)
}

/// A sink that keeps the commands in order, lent to one feed after another: its storage is
/// allocated once, so a request's commands cost no allocation.
///
/// ```swift
/// var commands = SessionCommands<RequestID>()
/// machine.send(.submit(1, key: nil, head: 0, now: 0), into: &commands)  // commands.list == [.proceed(1)]
/// commands.removeAll()
/// ```
public struct SessionCommands<Read>: SessionCommandSink {
    /// Slots written so far; those past `count` are left over from an earlier feed.
    private var slots: [SessionCommand<Read>] = []
    public private(set) var count = 0

    public init() {}

    public mutating func emit(_ command: SessionCommand<Read>) {
        // Overwrites a slot of an earlier feed rather than emptying the array between feeds.
        if count < slots.count { slots[count] = command } else { slots.append(command) }
        count += 1
    }

    public subscript(position: Int) -> SessionCommand<Read> { slots[position] }

    /// The commands of this feed, in order.
    public var list: ArraySlice<SessionCommand<Read>> { slots[..<count] }

    /// Empties the list and keeps its storage for the next feed.
    public mutating func removeAll() { count = 0 }
}

extension SessionCommand: Sendable where Read: Sendable {}
extension SessionCommand: Equatable where Read: Equatable {}
extension SessionCommands: Sendable where Read: Sendable {}
