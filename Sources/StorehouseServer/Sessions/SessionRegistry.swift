import Dispatch
import StoreCore
import StoreKinds
import Synchronization

/// Every session the server holds, by id.
///
/// The map's lock is held only to look up, insert or remove; work on a session
/// happens under that session's own lock, so sessions never wait for each other.
final class SessionRegistry: Sendable {
    /// The sessions by id, and their ids in order for the listing; one lock keeps the two alike.
    /// Internal for `SessionRegistry+Hibernation.swift`; touched only under `sessions`' lock.
    struct Table {
        var byID = ResidentSessions()
        var order = SessionIndex()
        /// Ids of imports under way: taken, though not yet served.
        var importing: Set<String> = []
        /// Hibernated sessions: in `order`, not in `byID`.
        var hibernated = HibernatedSessions()
        /// Hibernated sessions being loaded back, each with the group its other requests wait on.
        var loading: [String: DispatchGroup] = [:]

        /// Every session, resident or hibernated.
        var count: Int { byID.count + hibernated.count }

        func has(_ id: String) -> Bool { byID[id] != nil || hibernated.contains(id) }

        /// Whether the id is new (a session is otherwise replaced).
        @discardableResult
        mutating func insert(_ session: Session) -> Bool {
            if let replaced = byID.insert(session) {
                replaced.unlisted.store(true, ordering: .relaxed)
                return false
            }
            order.insert(session.id)
            return true
        }

        mutating func remove(_ id: String) -> Session? {
            guard let session = byID.removeValue(forKey: id) else { return nil }
            session.unlisted.store(true, ordering: .relaxed)
            order.remove(id)
            return session
        }
    }

    let sessions = Mutex<Table>(Table())
    let context: SessionContext
    let maxSessions: Int
    /// Where requests that load a hibernated session run (`SessionLoader`).
    let loader = SessionLoader()

    init(context: SessionContext, maxSessions: Int) {
        self.context = context
        self.maxSessions = maxSessions
    }

    /// Every session, resident or hibernated.
    var count: Int { sessions.withLock { $0.count } }

    /// Sessions in memory now.
    var residentCount: Int { sessions.withLock { $0.byID.count } }

    /// Whether `id` names a hibernated session (its next request loads it).
    func isHibernated(_ id: String) -> Bool { sessions.withLock { $0.hibernated.contains(id) } }

    /// The same by the packed id a request's path gave.
    func isHibernated(_ key: PackedSessionID) -> Bool { sessions.withLock { $0.hibernated.contains(key) } }

    /// Whether `id` names a session, without loading it.
    func exists(_ id: String) -> Bool { sessions.withLock { $0.has(id) } }

    func exists(_ key: PackedSessionID) -> Bool { sessions.withLock { $0.byID[key] != nil || $0.hibernated.contains(key) } }

    /// The session, loaded back from disk first when it is hibernated (blocks on the disk then);
    /// marks it used, so hibernation leaves it in memory (`SessionRegistry+Hibernation.swift`).
    func lookup(_ id: String) -> Session? { residentSession(id) }

    /// The resident sessions.
    var all: [Session] { sessions.withLock { Array($0.byID.values) } }

    /// Up to `limit` sessions with ids after `cursor`, ascending, of kind `kind` when given, and
    /// whether more follow (`GET /sessions`).
    /// Hibernated sessions are listed from their records, never loaded.
    func page(after cursor: String?, kind: String?, limit: Int) -> (sessions: [Listed], more: Bool) {
        sessions.withLock { table in
            let byID = table.byID  // shared storage, not a copy: the index mutates beside it
            let hibernated = table.hibernated
            var listed: [Listed] = []
            listed.reserveCapacity(limit)
            // `include` is asked once per id, in order, and a page ends at the first id past it:
            // each id included is listed as it is found.
            let (_, more) = table.order.page(after: cursor, limit: limit) { packed in
                if let record = hibernated.listed(packed) {
                    guard kind == nil || record.kind == kind else { return false }
                    if listed.count < limit { listed.append(.hibernated(record)) }
                    return true
                }
                guard let session = byID[packed], kind == nil || session.kind.name == kind else { return false }
                if listed.count < limit { listed.append(.resident(session)) }
                return true
            }
            return (listed, more)
        }
    }

    /// A session in a listing page.
    enum Listed {
        case resident(Session)
        case hibernated(HibernatedSessions.Listed)

        var id: String {
            switch self {
            case .resident(let session): session.id
            case .hibernated(let listed): listed.id.string
            }
        }

        func appendMetadataJSON(to out: inout [UInt8]) {
            switch self {
            case .resident(let session): session.appendMetadataJSON(to: &out)
            case .hibernated(let listed): listed.appendMetadataJSON(to: &out)
            }
        }
    }

    /// Creates a session of `kind` from `state` (nil: the kind's initial state). `completion` gets the
    /// session and its token once its metadata is durable, or the problem to answer.
    func create(kind: any StoreKind, state: JSONValue?, forkedFrom: ForkOrigin? = nil, ttlSeconds: Int = 0,
                completion: @escaping @Sendable (Result<(session: Session, token: String), Problem>) -> Void) {
        guard count < maxSessions else { return completion(.failure(Self.full)) }
        let store: any AnyStore
        do {
            store = try kind.makeStore(state: state, version: 0, environment: context.effectEnvironment)
        } catch {
            return completion(.failure(Problem(422, "invalid-state", "the state does not decode as a \(kind.name) state: \(error)")))
        }
        let id = context.routing.newSessionID()
        let token = Secrets.randomBase64URL(bytes: 32)
        let tokenHash = SHA256.hash(Array(token.utf8))
        let now = context.now()
        let session = Session(id: id, kind: kind, tokenHash: tokenHash, createdAt: now, store: store, context: context, forkedFrom: forkedFrom,
                              ttlSeconds: ttlSeconds)
        let inserted = sessions.withLock { table -> Bool? in
            guard table.count < maxSessions else { return false }
            guard !table.has(id) else { return nil }  // 2⁻¹²⁸, but a session is never replaced
            table.insert(session)
            return true
        }
        guard let inserted else { return create(kind: kind, state: state, forkedFrom: forkedFrom, ttlSeconds: ttlSeconds, completion: completion) }
        guard inserted else { return completion(.failure(Self.full)) }
        context.memoryBudget.sessions.add(1, ordering: .relaxed)  // memory budget: one more share
        // A restored state goes into the creation record itself, so it is durable before the 201.
        let meta = SnapshotCoding.meta(id: id, kind: kind.name, createdAt: now, tokenHash: tokenHash,
                                       state: state == nil ? nil : store.encodeState(), forkedFrom: forkedFrom, ttlSeconds: ttlSeconds)
        context.log.create(sessionID: id, meta: meta) { [self] result in
            switch result {
            case .success:
                // A restored state may wait for an effect (a request in flight when it was taken):
                // it runs, as it would after a restart, instead of leaving the flag set for good.
                // Taken before the 201 lets the client act on the session.
                let waiting = state == nil ? [] : session.takeInterruptedEffects()
                completion(.success((session, token)))
                session.start(waiting)
            case .failure(let error):
                _ = sessions.withLock { $0.remove(id) }
                context.memoryBudget.sessions.subtract(1, ordering: .relaxed)
                ServerLog.error("cannot create session files: \(error)")
                completion(.failure(Problem(503, "journal-unavailable", "the session could not be made durable; retry later",
                                            headers: [("Retry-After", "1")])))
            }
        }
    }

    /// Removes the session, ends its streams, deletes its files, then calls `completion`;
    /// false when there was no such session.
    @discardableResult
    func delete(_ id: String, reason: String = "deleted", completion: @escaping @Sendable () -> Void) -> Bool {
        guard let session = sessions.withLock({ $0.remove(id) }) else { return false }
        session.markDeleted(reason: reason)
        session.settleBudget()  // memory budget: a deleted session holds nothing
        context.memoryBudget.sessions.subtract(1, ordering: .relaxed)
        context.log.delete(sessionID: id, completion: completion)
        return true
    }

    /// Takes `id` for an import under way; the refusal when it is in use or the server is full.
    func reserveImport(_ id: String) -> Problem? {
        sessions.withLock { table in
            guard !table.has(id), !table.importing.contains(id) else {
                return Problem(409, "session-exists", "a session with this id exists; delete it first to import it again")
            }
            guard table.count + table.importing.count < maxSessions else { return Self.full }
            table.importing.insert(id)
            return nil
        }
    }

    /// Ends an import under way: `serving` is the imported session, nil when the import failed.
    func releaseImport(_ id: String, serving session: Session?) {
        sessions.withLock { table in
            table.importing.remove(id)
            if let session { table.insert(session) }
        }
        if session != nil { context.memoryBudget.sessions.add(1, ordering: .relaxed) }  // memory budget: one more share
    }

    /// Adds a session rebuilt from disk.
    func adopt(_ session: Session) {
        let added = sessions.withLock { $0.insert(session) }
        if added { context.memoryBudget.sessions.add(1, ordering: .relaxed) }  // memory budget: one more share
    }

    /// Sends `: keep-alive` to silent subscribers once a second, from a timer thread of its own.
    func startHeartbeats(intervalSeconds: Int) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "storehouse.heartbeat"))
        let interval = Int64(intervalSeconds) * 1_000
        timer.schedule(deadline: .now() + 1, repeating: .seconds(1), leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let now = context.now()
            let budget = context.memoryBudget
            let shrinking = budget.shouldShrink
            expireHibernated(at: now)
            recordExpiryClocks(at: now)
            for session in all {
                if session.lifetime.hasExpired(at: now), session.expiresNow(at: now) {
                    // Deleted as by DELETE: files gone, streams sent `end` with reason `expired`.
                    if delete(session.id, reason: "expired", completion: {}) { context.metrics.recordExpiry() }
                    continue
                }
                session.sendHeartbeats(now: now, interval: interval)
                session.expireParkedReads()
                session.settleBudget()  // memory budget: drained subscriber buffers, shrinking windows
            }
            hibernateIdle(at: now)
            if shrinking { budget.returnFreedMemory() }
        }
        timer.resume()
        return timer
    }

    static let full = Problem(503, "too-many-sessions", "the server holds as many sessions as it may",
                                      headers: [("Retry-After", "1")])
}
