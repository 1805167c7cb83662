import Dispatch
import Journal

/// Hibernation (docs/API.md "Lifecycle"): the once-a-second sweep unloads sessions nothing has
/// used for `--hibernate-after-s`, and a request for one loads it back from its journal.
///
/// A request marks its session used under the table's lock as it looks it up, and the sweep
/// unloads a session under that lock only if no such mark came since it found the session idle:
/// a request either holds a session that stays resident, or finds the summary and loads.
extension SessionRegistry {
    private enum Found {
        case resident(Session)
        case missing
        case waitFor(DispatchGroup)
        case load(SessionSummary, ParkedSession?, DispatchGroup)
    }

    /// What proves a token for session `id`, without loading it or marking it used: a request is
    /// authorized against this first, so one without the token never makes the server read a
    /// hibernated session's journal.
    func credential(_ id: String) -> SessionCredential? {
        PackedSessionID(id).flatMap(credential)
    }

    /// `credential(_:)` by the packed id a request's path gave (`PackedSessionID(wellFormed:)`):
    /// a resident session costs hashing the id's words, no string.
    func credential(_ key: PackedSessionID) -> SessionCredential? {
        sessions.withLock { table in
            if let session = table.byID[key] { return .resident(session) }
            guard table.hibernated.contains(key) else { return nil }
            return table.hibernated.summary(of: key.string).map { SessionCredential.hibernated(tokenHash: $0.tokenHash) }
        }
    }

    /// Marks `session`, found by `credential`, used so the sweep leaves it resident, as
    /// `residentOnly` does, without looking its id up again (hashing it): under the table's lock,
    /// the session is still the table's unless the sweep or a delete let go of it (`unlisted`).
    /// False then: the caller looks it up as if `credential` had not found it resident.
    /// `now`: the request's clock reading (`Exchange.now`), shared with what else stamps it.
    func markUsed(_ session: Session, now: Int64) -> Bool {
        sessions.withLock { _ in
            guard !session.unlisted.load(ordering: .relaxed) else { return false }
            session.lastUsed.store(now, ordering: .relaxed)
            return true
        }
    }

    /// The session `id` if it is resident, marked used so the sweep leaves it so; nil when it is
    /// hibernated (or gone): a caller that must not block on the disk loads it elsewhere.
    func residentOnly(_ id: String) -> Session? {
        PackedSessionID(id).flatMap { residentOnly($0, now: context.now()) }
    }

    func residentOnly(_ key: PackedSessionID, now: Int64) -> Session? {
        sessions.withLock { table in
            guard let session = table.byID[key] else { return nil }
            session.lastUsed.store(now, ordering: .relaxed)
            return session
        }
    }

    /// The resident session `id`, loaded from disk first when it is hibernated: one request loads
    /// it while the others for it wait (a `DispatchGroup` per id), and all of them get the session.
    func residentSession(_ id: String) -> Session? {
        while true {
            let now = context.now()
            let found = sessions.withLock { table -> Found in
                if let session = table.byID[id] {
                    session.lastUsed.store(now, ordering: .relaxed)
                    return .resident(session)
                }
                guard let summary = table.hibernated.summary(of: id) else { return .missing }
                if let loading = table.loading[id] { return .waitFor(loading) }
                let loading = DispatchGroup()
                loading.enter()
                table.loading[id] = loading
                return .load(summary, table.hibernated.parked(id), loading)
            }
            switch found {
            case .resident(let session): return session
            case .missing: return nil
            case .waitFor(let loading): loading.wait()
            case .load(let summary, let parked, let loading):
                guard let session = load(summary, parked: parked) else {
                    sessions.withLock { _ = $0.loading.removeValue(forKey: id) }
                    loading.leave()
                    return nil
                }
                sessions.withLock { table in
                    table.loading[id] = nil
                    table.hibernated.remove(id)
                    session.lastUsed.store(context.now(), ordering: .relaxed)
                    table.byID[id] = session  // already in `order`
                }
                context.memoryBudget.sessions.add(1, ordering: .relaxed)  // memory budget: one more share
                loading.leave()
                // Taken before any request acts on it, as at a restart (`Recovery.run`).
                if !session.damaged { session.resumeInterruptedEffects() }
                return session
            }
        }
    }

    /// Recovery's own rebuild of one session from its files; a stand-in answering 503
    /// `session-damaged` when they no longer read (as recovery leaves such a session); nil when
    /// not even that can be made.
    private func load(_ summary: SessionSummary, parked: ParkedSession?) -> Session? {
        let started = ContinuousClock.now
        do {
            let files = parked.map { context.log.load(sessionID: summary.id, parked: $0) } ?? context.log.load(sessionID: summary.id)
            let session = try Recovery.rebuild(files.get(), context: context)
            // Reads are not journaled: the expiry clock goes on from the summary's, not the last action.
            session.lifetime.touch(summary.lifetime.lastActivityMillis)
            session.settleBudget()
            context.metrics.recordLoad()
            let millis = (ContinuousClock.now - started) / .milliseconds(1)
            if millis >= 100 { ServerLog.info("session \(summary.id) loaded from disk in \(Int(millis)) ms") }
            return session
        } catch {
            ServerLog.error("session \(summary.id) could not be loaded from disk: \(error); its files are left for inspection")
            guard let store = try? summary.kind.makeStore(state: nil, version: 0, environment: context.effectEnvironment) else { return nil }
            return Session(id: summary.id, kind: summary.kind, tokenHash: summary.tokenHash, createdAt: summary.createdAt, store: store,
                           context: context, damaged: true, forkedFrom: summary.forkedFrom)
        }
    }

    /// How long a session must be unused before it leaves memory while the memory budget is
    /// under pressure (from 80 % of `--max-memory`), whatever `--hibernate-after-s` says: idle
    /// sessions go before any write is refused.
    static let idleUnderPressureMillis: Int64 = 1_000

    /// Unloads every resident session nothing used since `now - --hibernate-after-s` (or for
    /// `idleUnderPressureMillis` while the budget shrinks windows): the journal is flushed first
    /// (under `--fsync batch` and `never` an acknowledged action may not be on disk yet), and only
    /// a session whose head that flush covered leaves memory.
    func hibernateIdle(at now: Int64) {
        guard context.hibernateAfterMillis > 0 else { return }
        let idleFor = context.memoryBudget.shouldShrink
            ? min(context.hibernateAfterMillis, Self.idleUnderPressureMillis) : context.hibernateAfterMillis
        let threshold = now - idleFor
        let candidates = all.filter { $0.mayHibernate(idleSince: threshold) }.map { ($0, $0.durableVersionNow()) }
        guard !candidates.isEmpty else { return }
        context.log.flush()
        var unloaded: [(id: String, parking: DispatchGroup)] = []
        var left: [SessionSummary] = []
        for (session, version) in candidates {
            guard let summary = session.hibernationSummary(expectedVersion: version) else { continue }
            let parking = DispatchGroup()
            parking.enter()
            let done = sessions.withLock { table -> Bool in
                guard table.byID[session.id] === session, session.lastUsed.load(ordering: .relaxed) <= threshold,
                      table.hibernated.insert(summary, parked: nil) else { return false }
                table.byID[session.id] = nil  // stays in `order`: it is listed from its record
                session.unlisted.store(true, ordering: .relaxed)
                table.loading[session.id] = parking  // its requests wait until the journal parked it
                return true
            }
            guard done else {
                parking.leave()
                continue
            }
            session.releaseBudget()
            context.memoryBudget.sessions.subtract(1, ordering: .relaxed)
            context.metrics.recordHibernation()
            unloaded.append((session.id, parking))
            left.append(summary)
        }
        recordExpiryClocks(ofHibernated: left, at: now)
        let unloadedAny = !unloaded.isEmpty
        park(unloaded)
        // What the unloaded sessions held goes back to the kernel, so the resident size follows
        // the sessions in use (`scripts/bench-hibernation.py` measures it).
        if unloadedAny { context.memoryBudget.returnFreedMemory() }
    }

    /// Registers a session recovery found idle, as hibernated (listed, counted, loaded on request),
    /// with the journal's note of its files; false when it is not taken (its id is in use, or does
    /// not fit a record): recovery then rebuilds it.
    func adoptHibernated(_ summary: SessionSummary, parked: ParkedSession) -> Bool {
        sessions.withLock { table in
            guard !table.has(summary.id), table.hibernated.insert(summary, parked: parked) else { return false }
            table.order.insert(summary.id)
            return true
        }
    }

    /// Drops the journal's state of sessions that left memory, a batch at a time (each batch is
    /// one turn of the journal's thread): what the registry keeps of each is the record, with the
    /// journal's eight-byte note of its files. A session the journal keeps open (a write it has not
    /// synced) is loaded by id as before. Each session's `parking` group stands in `loading` until
    /// then, so a request for it waits and loads it the way the note says.
    private func park(_ unloaded: [(id: String, parking: DispatchGroup)]) {
        var start = 0
        while start < unloaded.count {
            let batch = unloaded[start..<min(unloaded.count, start + 4_096)]
            start += batch.count
            let parked = context.log.park(sessionIDs: batch.map(\.id))
            sessions.withLock { table in
                for ((id, parking), note) in zip(batch, parked) {
                    if let note { table.hibernated.setParked(id, note) }
                    if table.loading[id] === parking { table.loading[id] = nil }
                }
            }
            for (_, parking) in batch { parking.leave() }
        }
    }

    /// Deletes the hibernated sessions whose `ttlSeconds` passed, from their summaries: files
    /// removed, never loaded (they have no streams to end).
    func expireHibernated(at now: Int64) {
        let expired = sessions.withLock { table -> [(id: String, parked: ParkedSession?)] in
            guard !table.hibernated.isEmpty else { return [] }
            let found = table.hibernated.expired(at: now).filter { table.loading[$0.id] == nil }
            for (id, _) in found {
                table.hibernated.remove(id)
                table.order.remove(id)
            }
            return found
        }
        for (id, parked) in expired {
            if let parked { context.log.delete(sessionID: id, parked: parked) {} } else { context.log.delete(sessionID: id) {} }
            context.metrics.recordExpiry()
        }
    }
}
