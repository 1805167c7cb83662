import Dispatch
import Journal
import SessionCore
import StoreCore
import StoreKinds
import Synchronization

/// Rebuilds every session from its newest snapshot and the records after it (API.md "Durability").
///
/// Reducers are pure and every action carries its own time, so replaying the journal
/// gives byte-identical state. Effects are not rerun: what they fed back is journaled too.
/// Only an effect cut short by the crash (its answer never journaled) runs again, per `Kind.resume`.
enum Recovery {
    struct Report {
        /// `hibernated`: of `sessions`, those registered without being rebuilt.
        var sessions = 0, actions = 0, failures = 0, hibernated = 0
    }

    static func run(journal: Journal, registry: SessionRegistry) -> Report {
        let context = registry.context
        // Sessions idle for longer than `--hibernate-after-s` are registered hibernated, not
        // rebuilt: memory at start follows the sessions in use (their next request loads them).
        let idleBefore: Int64? = context.hibernateAfterMillis > 0 ? context.now() - context.hibernateAfterMillis : nil
        let results = Mutex<(sessions: [Session], hibernated: Int, actions: Int, failures: Int, unfinished: [String])>(([], 0, 0, 0, []))
        // Memory budget: each recovered history gets its share of the budget when it is short
        // (the registry counts them again as it adopts them).
        var expected = 0
        // Each session is rebuilt on the thread that read it, as soon as it is read, and its
        // records leave memory with it: recovery holds the sessions being read (one per reading
        // thread) on top of the rebuilt windows, never every session's journal at once, so a
        // restart stays within `--max-memory` as the live server does.
        let recovered = journal.recover(expecting: { count in
            expected = count
            context.memoryBudget.sessions.add(count, ordering: .relaxed)
        }, parking: { item, parked in
            // Registered as it is read, and parked: neither a summary nor the journal's state of
            // it is held for the rest of recovery.
            if let idleBefore, let parked, let summary = summary(item, context: context), summary.updatedAt <= idleBefore,
               registry.adoptHibernated(summary, parked: parked) {
                results.withLock { $0.hibernated += 1 }
                return true
            }
            do {
                let session = try rebuild(item, context: context)
                session.settleBudget()  // memory budget: recovered windows count, and shrink past it
                results.withLock { $0.sessions.append(session); $0.actions += item.records.count }
            } catch let error as IncompleteImport {
                // Never answered 201: the import is undone, as if it had not begun (once the
                // journal has adopted the files, below).
                ServerLog.info("session \(item.id) removed: \(error)")
                results.withLock { $0.unfinished.append(item.id) }
            } catch {
                ServerLog.error("session \(item.id) not recovered: \(error); its files are left for inspection")
                let session = damaged(item.id, meta: item.meta, context: context)
                results.withLock { $0.failures += 1; if let session { $0.sessions.append(session) } }
            }
            return false
        })
        defer { context.memoryBudget.sessions.subtract(expected, ordering: .relaxed) }
        var report = Report()
        for failure in recovered.failures {
            ServerLog.error("session \(failure.id) not recovered: \(failure.reason); its files are left for inspection")
            if let meta = recovered.failedMeta[failure.id], let session = damaged(failure.id, meta: meta, context: context) {
                registry.adopt(session)
            }
        }
        for warning in recovered.warnings {
            ServerLog.error("session \(warning.id): \(warning.message)")
        }
        report.failures = recovered.failures.count
        let done = results.withLock { $0 }
        for id in done.unfinished { journal.deleteSession(id: id) }
        for session in done.sessions { registry.adopt(session) }
        // What reading every session's files took (its buffers, the writer's states of the
        // sessions parked) goes back to the kernel: the resident size starts at what is kept.
        context.memoryBudget.returnFreedMemory()
        // Effects are not replayed, but one that was running when the process died never fed
        // its answer back: the kind says what the state still waits for, and it runs again.
        for session in done.sessions where !session.damaged { session.resumeInterruptedEffects() }
        report.sessions = done.sessions.count { !$0.damaged } + done.hibernated
        report.hibernated = done.hibernated
        report.actions = done.actions
        report.failures += done.failures
        return report
    }

    struct RecoveryError: Error, CustomStringConvertible { let description: String }

    /// What the registry keeps of a recovered session it does not rebuild: read off its metadata,
    /// its newest record (or snapshot) and nothing else. Nil when that does not decode or the
    /// session is an unfinished import: it is then rebuilt, which says why.
    static func summary(_ item: RecoveredSession, context: SessionContext) -> SessionSummary? {
        guard let meta = try? SnapshotCoding.decodeMeta(item.meta), meta.id == item.id, let kind = context.kinds.kind(named: meta.kind) else { return nil }
        if let imported = meta.imported {
            guard let snapshot = item.snapshot, snapshot.version >= imported.version else { return nil }
        }
        let version: Int, updatedAt: Int64
        if let last = item.records.last {
            guard let decoded = try? RecordCoding.decodeJournalRecord(last.bytes) else { return nil }
            version = last.version
            updatedAt = decoded.0.at
        } else if let snapshot = item.snapshot {
            guard let decoded = try? SnapshotCoding.decode(snapshot.bytes, state: { (r) throws(StateDecodingError) in try r.skipValue() }) else { return nil }
            version = decoded.version
            updatedAt = decoded.updatedAt
        } else {
            version = 0
            updatedAt = meta.createdAt
        }
        let lifetime = SessionLifetime(ttlSeconds: meta.ttlSeconds, lastActivity: meta.createdAt)
        lifetime.touch(updatedAt)
        if let recorded = context.expiryClocks?.recorded(meta.id) { lifetime.restore(recorded: recorded) }
        return SessionSummary(id: meta.id, kind: kind, tokenHash: meta.tokenHash, version: version, createdAt: meta.createdAt,
                              updatedAt: max(updatedAt, meta.createdAt), lifetime: lifetime, forkedFrom: meta.forkedFrom)
    }

    /// The stand-in for a session that could not be replayed: its owner (the token in its meta
    /// record) gets 503 `session-damaged` and can `DELETE` it. Nil when the meta record is unusable.
    static func damaged(_ id: String, meta bytes: [UInt8], context: SessionContext) -> Session? {
        guard let meta = try? SnapshotCoding.decodeMeta(bytes), meta.id == id, let kind = context.kinds.kind(named: meta.kind),
              let store = try? kind.makeStore(state: nil, version: 0, environment: context.effectEnvironment) else { return nil }
        return Session(id: id, kind: kind, tokenHash: meta.tokenHash, createdAt: meta.createdAt, store: store, context: context, damaged: true,
                       forkedFrom: meta.forkedFrom)
    }

    /// An imported session whose import never finished (`ImportedBase`): removed, not served.
    struct IncompleteImport: Error, CustomStringConvertible {
        var description: String { "its import did not finish (no snapshot at the imported version)" }
    }

    static func rebuild(_ item: RecoveredSession, context: SessionContext) throws -> Session {
        let meta = try SnapshotCoding.decodeMeta(item.meta)
        guard meta.id == item.id else { throw RecoveryError(description: "metadata names session \(meta.id)") }
        if let imported = meta.imported {
            guard let snapshot = item.snapshot, snapshot.version >= imported.version else { throw IncompleteImport() }
        }
        return try rebuild(meta: meta, snapshot: item.snapshot, records: item.records, context: context)
    }

    /// A session from its metadata record, its newest snapshot and the records after it: what
    /// recovery reads, and what an import builds before it writes anything.
    static func rebuild(meta: SnapshotCoding.Meta, snapshot: (version: Int, bytes: [UInt8])?, records journaled: [(version: Int, bytes: [UInt8])],
                        context: SessionContext) throws -> Session {
        guard let kind = context.kinds.kind(named: meta.kind) else { throw RecoveryError(description: "unknown kind \(meta.kind)") }
        var snapshotState: SharedState?
        var version = 0
        var updatedAt = meta.createdAt
        var idempotency = IdempotencyCache(answerBudget: context.idempotencyAnswerBudget)
        // Actions replayed before the journal's records: an import's log, while no snapshot
        // after it replaces it.
        var imported: [ActionRecord] = []
        if let base = meta.imported, (snapshot?.version ?? base.version) <= base.version {
            version = base.baseVersion
            imported = base.actions
            for (key, entry) in base.idempotency { idempotency.insert(key, entry) }
            guard version + imported.count == base.version, journaled.first.map({ $0.version == base.version + 1 }) ?? true else {
                throw RecoveryError(description: "the import's \(imported.count) actions after version \(version) do not reach its version \(base.version)")
            }
        } else if let snapshot {
            // Straight from the bytes into the kind's state: no `JSONValue` of a big state.
            let decoded = try SnapshotCoding.decode(snapshot.bytes) { (r) throws(StateDecodingError) in try kind.readState(from: &r) }
            snapshotState = decoded.state
            version = decoded.version
            updatedAt = decoded.updatedAt
            for (key, entry) in decoded.idempotency { idempotency.insert(key, entry) }
        }
        let store: any AnyStore
        if let snapshotState {
            store = try kind.makeStore(shared: snapshotState, version: version, environment: context.effectEnvironment)
        } else {
            store = try kind.makeStore(state: meta.state, version: version, environment: context.effectEnvironment)
        }
        // The state replay starts from, kept as it is (O(1)) before the records change the store.
        let base = store.sharedState()
        // The newest job of each name that the replay starts from or goes through: what an
        // interrupted request runs again (`AnyStore.interruptedEffects`). A request the base state
        // already waits for (a session created from such a state, or one in flight at the
        // snapshot) keeps the base's inputs unless a replayed action started it again.
        var replayedEffects: [String: PendingEffect] = [:]
        for effect in store.interruptedEffects() { if let id = effect.id { replayedEffects[id] = effect } }
        // The import's own array when nothing follows it (an import being built): not copied.
        var records: [ActionRecord] = imported
        if !journaled.isEmpty { records.reserveCapacity(imported.count + journaled.count) }
        // The keys the records set, in the order they were set live (the cache evicts by it): the
        // refusals a record carries were kept before its request's mark (`RefusalsToJournal.recover`).
        var keys: [(key: String, entry: IdempotencyCache.Entry)] = []
        for (offset, record) in journaled.enumerated() {
            guard record.version == version + imported.count + offset + 1 else {
                throw RecoveryError(description: "record \(record.version) follows version \(version + imported.count + offset)")
            }
            let (action, mark, refusals) = try RecordCoding.decodeJournalRecord(record.bytes)
            records.append(action)
            for refusal in refusals { keys.append((refusal.key, IdempotencyCache.Entry(keptRefusal: refusal))) }
            if let mark {
                keys.append((mark.key, .init(bodyHash: mark.bodyHash, firstVersion: mark.firstVersion, lastVersion: record.version,
                                             minimal: mark.minimal, createdAt: action.at, response: nil, durable: true)))
            }
        }
        // Replayed in runs that end at the states the window keeps, as they would have been kept live.
        let (changes, keptAlong) = try HistoryWindow.replayKeepingStates(
            records.count, after: version, length: context.history, keepEvery: context.keepEvery, keptStateBudget: context.keptStateBudget,
            state: { store.sharedState() }
        ) { run in
            let changes = try store.replay(Array(records[run]))
            for effect in store.takePendingEffects() { if let id = effect.id { replayedEffects[id] = effect } }
            return changes
        }
        if let last = records.last { updatedAt = max(updatedAt, last.at) }
        for (key, entry) in keys { RefusalsToJournal.recover(key, entry, into: &idempotency) }
        let session = Session(id: meta.id, kind: kind, tokenHash: meta.tokenHash, createdAt: meta.createdAt, store: store, context: context,
                              forkedFrom: meta.forkedFrom, ttlSeconds: meta.ttlSeconds)
        // The clock goes on from the last action or the last request before the restart, whichever
        // came later: both are on disk, and a restart never resets the clock.
        session.lifetime.touch(updatedAt)
        // The snapshot's size, so a big state's first full answer is encoded off the event loop too.
        session.stateBytesEstimate.store(snapshot?.bytes.count ?? 0, ordering: .relaxed)
        if let recorded = context.expiryClocks?.recorded(meta.id) { session.lifetime.restore(recorded: recorded) }
        session.restore(changes: changes, baseVersion: version, baseState: base, keptAlong: keptAlong,
                        updatedAt: updatedAt, idempotency: idempotency, replayedEffects: replayedEffects)
        return session
    }
}

extension Session {
    /// Starts the effects the recovered state still waits for (a request in flight at the crash).
    func resumeInterruptedEffects() {
        start(takeInterruptedEffects())
    }

    /// What the state waits for, as of now: taken before anyone else can act on the session, so
    /// an action of theirs cannot start the same request first.
    func takeInterruptedEffects() -> [PendingEffect] {
        lock.withLock {
            defer { replayedEffects = [:] }
            return store.interruptedEffects(replayed: replayedEffects)
        }
    }

    /// Installs what recovery replayed: the history after the snapshot and the idempotency window.
    /// `keptAlong`: states at versions between the base and the head, in order, kept on the way.
    func restore(changes: [Change], baseVersion: Int, baseState: SharedState, keptAlong: [(version: Int, state: SharedState, weight: Int)] = [],
                 updatedAt: Int64, idempotency: IdempotencyCache, replayedEffects: [String: PendingEffect] = [:]) {
        lock.withLock {
            self.replayedEffects = replayedEffects
            window.restore(changes, base: (baseVersion, baseState), keptAlong: keptAlong, head: store.version, headState: { store.sharedState() },
                           byteLimit: historyByteLimitLocked, rebuild: { try? replay($0).sharedState() })
            var after = Afterwards()
            feedLocked(.recovered(version: store.version), into: &after)
            feedLocked(.wroteSnapshot(at: baseVersion), into: &after)
            trimHistoryLocked()
            self.updatedAt = updatedAt
            machine.ledger = idempotency
        }
    }
}
