import Foundation
import HTTPEngine
import SessionCore
import StoreCore
import Synchronization

/// One session: a store, the history of its actions, its subscribers and its idempotency keys.
///
/// A session applies one request at a time (its lock); sessions run in parallel.
/// The order of work for an action request is fixed, and every step runs in version order:
/// apply to the store → hand the records to the log → once durable, publish to
/// subscribers, answer the client, start the effects.
///
/// The state a session reads and writes is its head, which may run ahead of what
/// is durable while a journal append is in flight; subscribers and clients only
/// ever hear of durable versions. When the log refuses an append, the head is
/// rebuilt at the last durable version and the waiting requests get 503.
final class Session: @unchecked Sendable {  // every `var` below is read and written under `lock`
    let id: String
    /// The id packed, the registry's key (`ResidentSessions`).
    let key: PackedSessionID
    let kind: any StoreKind
    let tokenHash: [UInt8]
    let createdAt: Int64
    let context: SessionContext
    /// Set for a session whose journal could not be replayed at start: it answers its owner
    /// 503 `session-damaged` (and `DELETE`), rather than 404 as if it had never existed.
    let damaged: Bool
    /// The session and version this one was forked from, nil for one created otherwise.
    let forkedFrom: ForkOrigin?
    /// Its `ttlSeconds` and last activity.
    let lifetime: SessionLifetime

    let lock = SessionLock()
    /// The token, once a request proved it: a heap buffer (byte count, then the bytes) published
    /// once by a compare-exchange and never changed until deinit; read without a lock.
    private let verifiedToken = Atomic<UnsafeMutableRawPointer?>(nil)
    var store: any AnyStore
    var updatedAt: Int64
    /// The history ring, the kept states and where the window ends (`SessionCore.HistoryWindow`).
    var window: HistoryWindow
    /// The window's ring and kept states, as the reads, the event streams and the tests see them.
    var history: ActionHistory { window.history }
    var keptStates: KeptStates {
        get { window.keptStates }
        set { window.keptStates = newValue }
    }
    /// The request lifecycle: durable and published versions, appends in flight, the
    /// Idempotency-Keys, the reads waiting for a durable head, what each event stream was sent
    /// and when, and when the journal gets a snapshot (`SessionCore.SessionMachine`).
    /// Fed events under `lock`; its commands run in order, those that need no state after unlocking.
    var machine: Machine {
        didSet { hasParkedReads.store(!machine.parked.isEmpty, ordering: .relaxed) }
    }
    /// Lent to each `feedLocked` and given back, so a request's commands cost no allocation.
    var commandBuffer = SessionCommands<RequestID>()
    /// Lent to a feed inside another's commands (a publication), and how deep the feeds are now.
    var nestedCommandBuffer = SessionCommands<RequestID>()
    var feedDepth = 0
    /// The reads the machine holds parked, by the id it knows them by (`parkLocked`).
    var parkedReads: [RequestID: ParkedRead] = [:]
    /// The next request id; ids name the requests the machine answers.
    var nextRequestID: RequestID = 0
    /// Idempotent repeats waiting on a request in flight: where each one's answer goes, by its
    /// request id, looked up when the machine's `.reply` names it once the first request's fate is known.
    var waitingRepeats: [RequestID: ReplyTo] = [:]
    var durability: Durability { machine.durability }
    /// The newest version whose actions are as durable as `--fsync` promises.
    var durableVersion: Int { durability.durableVersion }
    /// The newest version handed to the subscribers; behind `durableVersion` while a fan-out
    /// waits on `context.fanOutQueue` (with the outputs of the versions in between).
    var publishedVersion: Int { durability.publishedVersion }
    var pendingOutputs: [(Int, StoreOutput)] = []
    var publishScheduled = false
    /// The event streams by the id the machine knows them by; what each was sent is the machine's.
    var subscribers: [SubscriberID: Subscriber] = [:] {
        didSet { hasSubscribers.store(!subscribers.isEmpty, ordering: .relaxed) }
    }
    /// Whether `subscribers` and `parkedReads` hold anything, readable without the lock: the
    /// registry's once-a-second sweep passes over a session with neither instead of taking its
    /// lock twice (0.8 µs a session, 80 ms of every second at 100,000 sessions). A stale answer
    /// only moves a heartbeat or an expiry to the next second.
    let hasSubscribers = Atomic<Bool>(false)
    let hasParkedReads = Atomic<Bool>(false)
    /// When a request last looked the session up (milliseconds), and how many of its effects run:
    /// what hibernation asks before it unloads the session (`Session+Hibernation.swift`).
    let lastUsed: Atomic<Int64>
    /// Set under the registry's lock once the registry lets go of this session (hibernated,
    /// deleted, replaced): a request holding it from `credential` marks it used without a second
    /// lookup (`SessionRegistry.markUsed`).
    let unlisted = Atomic<Bool>(false)
    let effectsRunning = Atomic<Int>(0)
    /// The journal's answers to the appends in flight, oldest first, settled together at the
    /// group's end (`settleAnsweredAppends`); its own lock, not the session's.
    let answeredAppends = Mutex(AppendAnswers())
    /// The appends the answers are about, oldest first (`AppendsInFlight`).
    var appendsInFlight = AppendsInFlight()
    /// The refusals kept since the last durable record: the next journaled action carries them
    /// (`RecordCoding.KeptRefusal`). None in memory.
    var refusalsToJournal: RefusalsToJournal
    var deleted: Bool { machine.deleted }
    /// The reason the streams' `end` event gives when the session is deleted (`markDeleted`).
    var endReason = "deleted"
    /// The head's `{"version":N,"state":…}` answer, built once per version: a full POST answer
    /// and every GET of the state share it. Cleared by a rollback, which reuses version numbers.
    var cachedState: CachedHead?
    /// The head as an SSE `snapshot` frame, built once per version and shared by every stream
    /// that needs one. Cleared with `cachedState`.
    var cachedSnapshot: (version: Int, frame: SharedChunk)?
    /// Set by recovery until `resumeInterruptedEffects`: the newest job of each name that the
    /// state it replayed from waited for or the replayed actions started.
    var replayedEffects: [String: PendingEffect] = [:]
    /// The newest action time, so versions never go back in time.
    var lastActionAt: Int64 = 0
    /// The size of the last journal snapshot, once it is encoded (on the snapshot thread): the
    /// next waits until the actions since weigh half of it (`SnapshotSchedule`), so a big
    /// state's snapshots cost O(1) per action byte however big the state grows.
    let journalSnapshotBytes = Atomic<Int>(0)
    /// True from the moment a journal snapshot is taken until the snapshot thread has handed it
    /// to the log: no second one is taken meanwhile.
    let journalSnapshotWriting = Atomic<Bool>(false)
    /// The session's requests moved off the event loop, in order; while it holds any, the
    /// session's next requests queue behind them (`Router.handleAdmitted`, `submit`).
    let lane = OffLoopLane()
    /// About how many bytes the state encodes to: its last encoding's size plus the weight of
    /// the actions since (an overestimate until the next encoding), readable without the lock,
    /// so the router sends a request that would encode a big state off the event loop. Written
    /// under `lock`.
    let stateBytesEstimate = Atomic<Int>(0)
    /// The metrics' slots for this kind's actions from clients and from effects (`Metrics.actionSlot`):
    /// counting a write's actions is then one atomic add.
    let clientActionSlot: Int?, effectActionSlot: Int?
    /// What this session is charged for in the memory budget (`Session+MemoryBudget.swift`).
    var budgetCharged = 0
    /// Unsent bytes of this session's event streams at the last heartbeat's settlement: a write
    /// does not walk thousands of subscribers to charge them.
    var budgetSubscriberBytes = 0

    init(id: String, kind: any StoreKind, tokenHash: [UInt8], createdAt: Int64, store: any AnyStore, context: SessionContext,
         damaged: Bool = false, forkedFrom: ForkOrigin? = nil, ttlSeconds: Int = 0) {
        self.id = id
        // Every id is well-formed (`Secrets.isWellFormedID`), so it packs; an empty key matches no request.
        key = PackedSessionID(id) ?? PackedSessionID()
        self.forkedFrom = forkedFrom
        lifetime = SessionLifetime(ttlSeconds: ttlSeconds, lastActivity: createdAt)
        lastUsed = Atomic(context.now())
        self.damaged = damaged
        self.kind = kind
        clientActionSlot = context.metrics.actionSlot(kind: kind.name, source: ActionSource.client.rawValue)
        effectActionSlot = context.metrics.actionSlot(kind: kind.name, source: ActionSource.effect.rawValue)
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.store = store
        self.context = context
        updatedAt = createdAt
        window = HistoryWindow(length: context.history, keepEvery: context.keepEvery, keptStateBudget: context.keptStateBudget,
                               version: store.version, state: store.sharedState())
        refusalsToJournal = RefusalsToJournal(journaled: !context.log.completesInline)
        machine = SessionMachine(version: store.version, ledger: IdempotencyCache(answerBudget: context.idempotencyAnswerBudget),
                                 snapshots: SnapshotSchedule(every: context.snapshotEvery, bytes: context.snapshotBytes))
    }

    deinit {
        if let known = verifiedToken.load(ordering: .acquiring) { Self.wipeAndFree(known) }
    }

    /// Zeroes a token buffer before freeing it, so the secret does not linger in freed memory.
    private static func wipeAndFree(_ buffer: UnsafeMutableRawPointer) {
        let count = MemoryLayout<Int>.stride + buffer.load(as: Int.self)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        buffer.deallocate()
    }

    /// Whether `token` is this session's, in constant time.
    ///
    /// The first token whose SHA-256 matches is remembered (in memory only, never logged or
    /// written): it is the one token this session has, so later requests compare bytes with it
    /// instead of hashing every request's token again.
    func accepts(token: UnsafeBufferPointer<UInt8>) -> Bool {
        let header = MemoryLayout<Int>.stride
        if let known = verifiedToken.load(ordering: .acquiring) {
            let count = known.load(as: Int.self)
            return Secrets.constantTimeEqual(UnsafeRawBufferPointer(start: known + header, count: count), token)
        }
        guard Secrets.constantTimeEqual(SHA256.hash(token), tokenHash) else { return false }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: header + token.count, alignment: MemoryLayout<Int>.alignment)
        copy.storeBytes(of: token.count, as: Int.self)
        if let base = token.baseAddress { (copy + header).copyMemory(from: base, byteCount: token.count) }
        // Another thread may have proved it at the same moment; keep the first copy.
        if !verifiedToken.compareExchange(expected: nil, desired: copy, ordering: .acquiringAndReleasing).exchanged {
            Self.wipeAndFree(copy)
        }
        return true
    }

    func accepts(token: String) -> Bool {
        var token = token
        return token.withUTF8 { accepts(token: $0) }
    }

    /// The encoded head state and its version.
    func currentState() -> (version: Int, bytes: [UInt8]) {
        lock.withLock { currentStateLocked() }
    }

    func currentStateLocked() -> (version: Int, bytes: [UInt8]) {
        let head = headLocked()
        return (head.version, Array(head.response.body[head.stateRange]))
    }

    /// `{"version":N,"state":…}` at the head, with its ETag, and the version it names.
    func stateAnswerLocked() -> (version: Int, response: HTTPResponse) {
        let head = headLocked()
        return (head.version, head.response)
    }

    /// The head as an SSE `snapshot` frame, shared: a new subscriber and every subscriber reset
    /// by the slow-subscriber rule at one version queue the same bytes, so many subscribers cost
    /// the state once, not once each.
    func snapshotFrameLocked() -> (version: Int, frame: SharedChunk) {
        let head = headLocked()
        if let cached = cachedSnapshot, cached.version == head.version { return cached }
        let fresh = (head.version, SharedChunk(EventFrames.snapshot(version: head.version, answer: head.response.body)))
        cachedSnapshot = fresh
        return fresh
    }

    private func headLocked() -> CachedHead {
        // One reference to the store for both calls below (each `self.store.…` retains and
        // releases it), and its version asked once. Compared in place: binding the head first
        // would copy it (and its buffers' references).
        let store = self.store
        let version = store.version
        if cachedState?.version == version, let cached = cachedState { return cached }
        // The head before lends its buffers (`JSONAnswer.state`): the session lets go of it first.
        let expectedStateBytes = cachedState?.stateRange.count ?? 64
        var previous = cachedState.take()?.response
        let (response, stateRange) = JSONAnswer.state(version: version, reusing: &previous, expectedStateBytes: expectedStateBytes) {
            store.encodeState(into: &$0)
        }
        let fresh = CachedHead(version: version, response: response, stateRange: stateRange)
        cachedState = fresh
        stateBytesEstimate.store(stateRange.count, ordering: .relaxed)
        return fresh
    }

    /// The newest durable version, taken under the lock.
    func durableVersionNow() -> Int { lock.withLock { durableVersion } }

    /// `{"id","kind","version","createdAt","updatedAt","expiresAt","subscribers","resident","forkedFrom"?}`, as of the newest durable
    /// version (see `answerWhenDurable`).
    func metadataJSON() -> [UInt8] {
        lock.withLock {
            SessionSummary.metadataJSON(id: id, kind: kind.name, version: durableVersion, createdAt: createdAt, updatedAt: updatedAt,
                                        expiresAt: lifetime.expiresAt, subscribers: subscribers.count, resident: true, forkedFrom: forkedFrom)
        }
    }
}

/// A session's head state as its answer: the state's bytes are `response.body[stateRange]`.
struct CachedHead {
    let version: Int
    let response: HTTPResponse
    let stateRange: Range<Int>
}
