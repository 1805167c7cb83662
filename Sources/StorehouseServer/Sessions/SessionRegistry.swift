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

    /// Creates a session of `kind` from `state` (nil: the kind's initial state) and returns it with its token.
    func create(kind: any StoreKind, state: JSONValue?) throws(Problem) -> (session: Session, token: String) {
        guard count < maxSessions else { throw Self.full }
        let store: any AnyStore
        do {
            store = try kind.makeStore(state: state, version: 0, environment: context.effectEnvironment)
        } catch {
            throw Problem(422, "invalid-state", "the state does not decode as a \(kind.name) state: \(error)")
        }
        let id = Secrets.randomBase64URL(bytes: 16)
        let token = Secrets.randomBase64URL(bytes: 32)
        let tokenHash = SHA256.hash(Array(token.utf8))
        let now = context.now()
        let session = Session(id: id, kind: kind, tokenHash: tokenHash, createdAt: now, store: store, context: context)
        let inserted = sessions.withLock { map -> Bool in
            guard map.count < maxSessions else { return false }
            map[id] = session
            return true
        }
        guard inserted else { throw Self.full }
        do {
            try context.log.create(sessionID: id, meta: SnapshotCoding.meta(id: id, kind: kind.name, createdAt: now, tokenHash: tokenHash))
            if state != nil {
                // A restored state is not the kind's initial state, so replay must start from it.
                let bytes = SnapshotCoding.encode(version: 0, state: store.encodeState(), updatedAt: now, idempotency: IdempotencyCache())
                context.log.snapshot(sessionID: id, version: 0, bytes: bytes)
            }
        } catch {
            _ = sessions.withLock { $0.removeValue(forKey: id) }
            ServerLog.error("cannot create session files: \(error)")
            throw Problem(503, "journal-unavailable", "the session could not be made durable; retry later", headers: [("Retry-After", "1")])
        }
        return (session, token)
    }

    /// Removes the session, ends its streams and deletes its files.
    func delete(_ id: String) -> Bool {
        guard let session = sessions.withLock({ $0.removeValue(forKey: id) }) else { return false }
        session.markDeleted()
        context.log.delete(sessionID: id)
        return true
    }

    /// Adds a session rebuilt from disk.
    func adopt(_ session: Session) {
        sessions.withLock { $0[session.id] = session }
    }

    /// Sends `: keep-alive` to silent subscribers once a second, from a timer thread of its own.
    func startHeartbeats(intervalSeconds: Int) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "storehouse.heartbeat"))
        let interval = Int64(intervalSeconds) * 1_000
        timer.schedule(deadline: .now() + 1, repeating: .seconds(1), leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let now = context.now()
            for session in all { session.sendHeartbeats(now: now, interval: interval) }
        }
        timer.resume()
        return timer
    }

    private static let full = Problem(503, "too-many-sessions", "the server holds as many sessions as it may",
                                      headers: [("Retry-After", "1")])
}
