import Dispatch
import StoreCore

extension SessionRegistry {
    /// Recreates an exported session (`POST /sessions/import`): all or nothing. The session is
    /// built in memory first, by the very code recovery rebuilds sessions with, from the record
    /// that is then written; nothing reaches the disk unless it replays to its version. The
    /// record is one journal write (`ImportedBase`), and the session is served, and `completion`
    /// told, only once the snapshot that completes it is on disk too.
    func importSession(_ export: SessionExport, completion: @escaping @Sendable (Result<Session, Problem>) -> Void) {
        let id = export.id
        if let refusal = reserveImport(id) { return completion(.failure(refusal)) }
        let built: (session: Session, meta: [UInt8])
        do throws(Problem) { built = try build(export) } catch {
            releaseImport(id, serving: nil)
            return completion(.failure(error))
        }
        let session = built.session
        let version = export.version
        context.log.create(sessionID: id, meta: built.meta) { [self] result in
            if case .failure(let error) = result {
                releaseImport(id, serving: nil)
                ServerLog.error("cannot create the files of imported session \(id): \(error)")
                return completion(.failure(Problem(503, "journal-unavailable", "the session could not be made durable; retry later",
                                                   headers: [("Retry-After", "1")])))
            }
            // The snapshot at the imported version tells the journal where the versions go on,
            // and marks the import complete; `flush` blocks, so not on the journal's thread.
            DispatchQueue.global().async { [self] in
                let bytes = session.lock.withLock {
                    var after = Afterwards()
                    session.feedLocked(.wroteSnapshot(at: version), into: &after)
                    return SnapshotCoding.encode(version: version, state: session.currentStateLocked().bytes,
                                                 updatedAt: session.updatedAt, idempotency: session.machine.ledger)
                }
                context.log.snapshot(sessionID: id, version: version, bytes: bytes)
                context.log.flush()
                session.lifetime.touch(context.now())  // the import is a request: the idle clock starts now
                let waiting = session.takeInterruptedEffects()
                releaseImport(id, serving: session)
                completion(.success(session))
                session.start(waiting)
            }
        }
    }

    /// The session `export` describes and the metadata record that rebuilds it; 422 when the
    /// state does not decode or the actions do not replay.
    private func build(_ export: SessionExport) throws(Problem) -> (session: Session, meta: [UInt8]) {
        let base: [UInt8]
        do {
            base = try export.kind.makeStore(state: export.state, version: export.baseVersion, environment: context.effectEnvironment).encodeState()
        } catch {
            throw Problem(422, "invalid-export", "state: does not decode as a \(export.kind.name) state: \(error)")
        }
        var actions: [UInt8] = [UInt8(ascii: "[")]
        for (index, record) in export.actions.enumerated() {
            if index > 0 { actions.append(UInt8(ascii: ",")) }
            actions += RecordCoding.action(record, version: export.baseVersion + index + 1)
        }
        actions.append(UInt8(ascii: "]"))
        var keys = IdempotencyCache(answerBudget: context.idempotencyAnswerBudget)
        for (key, entry) in export.idempotency { keys.insert(key, entry) }
        var idempotency: [UInt8] = []
        SnapshotCoding.appendIdempotency(keys, through: export.version, to: &idempotency)
        let meta = SnapshotCoding.meta(id: export.id, kind: export.kind.name, createdAt: export.createdAt, tokenHash: export.tokenHash, state: base,
                                       ttlSeconds: export.ttlSeconds,
                                       imported: .init(baseVersion: export.baseVersion, version: export.version, actions: actions, idempotency: idempotency))
        do {
            // The record as recovery would read it, without parsing the bytes just written.
            let read = SnapshotCoding.Meta(id: export.id, kind: export.kind.name, createdAt: export.createdAt, tokenHash: export.tokenHash,
                                           state: export.state, forkedFrom: nil, ttlSeconds: export.ttlSeconds,
                                           imported: ImportedBase(baseVersion: export.baseVersion, version: export.version,
                                                                  actions: export.actions, idempotency: export.idempotency))
            let session = try Recovery.rebuild(meta: read, snapshot: nil, records: [], context: context)
            return (session, meta)
        } catch {
            throw Problem(422, "invalid-export", "actions: they do not replay from baseVersion \(export.baseVersion) to version \(export.version): \(error)")
        }
    }
}
