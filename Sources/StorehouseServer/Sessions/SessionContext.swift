import Foundation
import StoreCore
import StoreKinds

/// What every session shares: settings, the log, metrics and the clock.
struct SessionContext: Sendable {
    let history: Int
    let subscriberBufferBytes: Int
    /// A state is kept (a starting point for time travel and rollback) every this many versions.
    let keepEvery: Int
    /// A journal snapshot is written at most every this many versions: each costs six syncs
    /// (snapshot and segment rotation), and the records of the `--history` window stay on disk
    /// anyway, so snapshotting more often than that saves no disk and no replay worth it.
    let snapshotEvery: Int
    let keptStateBudget: Int
    /// Bytes of actions and patches a session's history holds: large actions end the window
    /// before `history` does.
    let historyBytes: Int
    /// A journal snapshot is also due once this many bytes of actions left the history window
    /// since the last one (their records are compactable).
    let snapshotBytes: Int
    /// Bytes of first answers each session keeps for its `Idempotency-Key`s.
    let idempotencyAnswerBudget: Int
    /// A session with this many subscribers publishes on `fanOutQueue`, not on the thread that
    /// made the change durable.
    let fanOutInlineLimit: Int
    /// How long a read of the head waits for it to be durable (`Session.expireParkedReads`).
    let durableReadDeadlineMillis: Int64
    /// The whole server's memory budget, which every session charges (`Session+MemoryBudget.swift`).
    let memoryBudget: MemoryBudget
    /// JSON bytes of one action's payload and meta together.
    let maxActionBytes: Int
    let fanOutQueue: DispatchQueue
    let log: any SessionLog
    /// Where journal snapshots are encoded and handed to `log`, one at a time.
    let snapshotWriter = SnapshotWriter()
    let metrics: Metrics
    let gauges: Gauges
    let effectEnvironment: EffectEnvironment
    /// The server's phase: a session refuses client actions once it drains (`Session.submit`).
    let readiness: Readiness
    /// This node's id: what new session ids start with (`NodeRouting`).
    let routing: NodeRouting
    let now: @Sendable () -> Int64
    /// The kinds sessions can be created with and recovered as.
    let kinds: KindRegistry
    /// Idle milliseconds after which a session hibernates (`--hibernate-after-s`); 0: never.
    let hibernateAfterMillis: Int64
    /// Where work too costly for an event loop runs (`OffLoopPool`), and what is too costly:
    /// a body past `offLoopBodyBytes`, a state whose encoding passes `offLoopStateBytes`.
    let offLoop: OffLoopPool
    let offLoopBodyBytes: Int
    let offLoopStateBytes: Int
    /// Where the last requests of sessions with a TTL survive a restart; nil in memory.
    let expiryClocks: ExpiryClocks?

    init(configuration: ServerConfiguration, log: any SessionLog, metrics: Metrics, gauges: Gauges,
         effectEnvironment: EffectEnvironment, fanOutQueue: DispatchQueue = .global(qos: .userInitiated),
         readiness: Readiness = Readiness(), now: @escaping @Sendable () -> Int64 = SessionContext.wallClock,
         kinds: KindRegistry = .shipped, expiryClocks: ExpiryClocks? = nil) {
        history = configuration.history
        subscriberBufferBytes = configuration.subscriberBufferBytes
        keepEvery = max(1, min(1_000, configuration.history / 10))
        // At least every 1,000 versions: with a small --history, a snapshot per action (each a
        // file written and synced) cost ten times the actions' own appends under --fsync always.
        snapshotEvery = max(keepEvery, configuration.history, 1_000)
        keptStateBudget = configuration.keptStateBudget
        historyBytes = configuration.historyBytes
        snapshotBytes = configuration.historyBytes
        idempotencyAnswerBudget = configuration.idempotencyAnswerBudget
        fanOutInlineLimit = configuration.fanOutInlineLimit
        durableReadDeadlineMillis = configuration.durableReadDeadlineMillis
        memoryBudget = MemoryBudget(limit: configuration.maxMemory ?? MemoryBudget.defaultLimit(),
                                    countsResident: configuration.memoryBudgetCountsResident)
        maxActionBytes = configuration.maxActionBytes
        self.fanOutQueue = fanOutQueue
        self.log = log
        self.metrics = metrics
        self.gauges = gauges
        self.effectEnvironment = effectEnvironment
        self.readiness = readiness
        routing = NodeRouting(node: configuration.nodeID)
        self.now = now
        self.kinds = kinds
        self.expiryClocks = expiryClocks
        // In memory there is no copy to load back from.
        hibernateAfterMillis = configuration.inMemory ? 0 : Int64(configuration.hibernateAfterSeconds) * 1_000
        offLoop = OffLoopPool()
        offLoopBodyBytes = configuration.offLoopBodyBytes
        offLoopStateBytes = configuration.offLoopStateBytes
    }

    /// Milliseconds since the Unix epoch.
    @Sendable static func wallClock() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
