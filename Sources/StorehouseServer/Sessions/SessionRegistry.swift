import Dispatch
import StoreCore
import StoreKinds
import Synchronization

/// Every session the server holds, by id.
///
/// The map's lock is held only to look up, insert or remove; work on a session
/// happens under that session's own lock, so sessions never wait for each other.
final class SessionRegistry: Sendable {
    private let sessions = Mutex<[String: Session]>([:])
    let context: SessionContext
    let maxSessions: Int

    init(context: SessionContext, maxSessions: Int) {
        self.context = context
        self.maxSessions = maxSessions
    }

    var count: Int { sessions.withLock { $0.count } }

    func lookup(_ id: String) -> Session? { sessions.withLock { $0[id] } }

    var all: [Session] { sessions.withLock { Array($0.values) } }

    /// Creates a session of `kind` from `state` (nil: the kind's initial state). `completion` gets the
    /// session and its token once its metadata is durable, or the problem to answer.
    func create(kind: any StoreKind, state: JSONValue?,
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
        let session = Session(id: id, kind: kind, tokenHash: tokenHash, createdAt: now, store: store, context: context)
        let inserted = sessions.withLock { map -> Bool? in
            guard map.count < maxSessions else { return false }
            guard map[id] == nil else { return nil }  // 2⁻¹²⁸, but a session is never replaced
            map[id] = session
            return true
        }
        guard let inserted else { return create(kind: kind, state: state, completion: completion) }
        guard inserted else { return completion(.failure(Self.full)) }
        context.memoryBudget.sessions.add(1, ordering: .relaxed)  // memory budget: one more share
        // A restored state goes into the creation record itself, so it is durable before the 201.
        let meta = SnapshotCoding.meta(id: id, kind: kind.name, createdAt: now, tokenHash: tokenHash,
                                       state: state == nil ? nil : store.encodeState())
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
                _ = sessions.withLock { $0.removeValue(forKey: id) }
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
    func delete(_ id: String, completion: @escaping @Sendable () -> Void) -> Bool {
        guard let session = sessions.withLock({ $0.removeValue(forKey: id) }) else { return false }
        session.markDeleted()
        session.settleBudget()  // memory budget: a deleted session holds nothing
        context.memoryBudget.sessions.subtract(1, ordering: .relaxed)
        context.log.delete(sessionID: id, completion: completion)
        return true
    }

    /// Adds a session rebuilt from disk.
    func adopt(_ session: Session) {
        let added = sessions.withLock { $0.updateValue(session, forKey: session.id) == nil }
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
            for session in all {
                session.sendHeartbeats(now: now, interval: interval)
                session.expireParkedReads()
                session.settleBudget()  // memory budget: drained subscriber buffers, shrinking windows
            }
            if shrinking { budget.returnFreedMemory() }
        }
        timer.resume()
        return timer
    }

    private static let full = Problem(503, "too-many-sessions", "the server holds as many sessions as it may",
                                      headers: [("Retry-After", "1")])
}
