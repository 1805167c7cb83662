import Dispatch
import StoreCore

extension SessionRegistry {
    /// An import's answer: the session and its state at its version, encoded once (for its
    /// snapshot and for the 201).
    struct Imported {
        let session: Session
        let version: Int
        let state: [UInt8]
    }

    /// Recreates an exported session (`POST /sessions/import`): all or nothing. The session is
    /// built in memory first, by the very code recovery rebuilds sessions with, from the record
    /// that is then written; nothing reaches the disk unless it replays to its version. The
    /// record is one journal write (`ImportedBase`), and the session is served, and `completion`
    /// told, only once the snapshot that completes it is on disk too. When the record or the
    /// snapshot cannot be written, the answer is 503 `journal-unavailable` and the files go
    /// (recovery removes them too, should the process die first).
    func importSession(_ export: SessionExport, completion: @escaping @Sendable (Result<Imported, Problem>) -> Void) {
        let id = export.id
        if let refusal = reserveImport(id) { return completion(.failure(refusal)) }
        let session: Session
        do throws(Problem) { session = try build(export) } catch {
            releaseImport(id, serving: nil)
            return completion(.failure(error))
        }
        let version = export.version
        // In memory nothing is written, so neither the record nor the snapshot is built.
        let durable = !context.log.completesInline
        let meta: [UInt8]
        do throws(Problem) { meta = durable ? try record(export) : [] } catch {
            releaseImport(id, serving: nil)
            return completion(.failure(error))
        }
        context.log.create(sessionID: id, meta: meta) { [self] result in
            if case .failure(let error) = result {
                releaseImport(id, serving: nil)
                ServerLog.error("cannot create the files of imported session \(id): \(error)")
                return completion(.failure(Self.notDurable))
            }
            let finish: @Sendable () -> Void = { [self] in
                let state = session.lock.withLock {
                    var after = Afterwards()
                    session.feedLocked(.wroteSnapshot(at: version), into: &after)
                    return session.currentStateLocked().bytes
                }
                if durable {
                    // The snapshot at the imported version tells the journal where the versions go
                    // on, and marks the import complete.
                    let bytes = session.lock.withLock {
                        SnapshotCoding.encode(version: version, state: state, updatedAt: session.updatedAt, idempotency: session.machine.ledger)
                    }
                    guard context.log.snapshot(sessionID: id, version: version, bytes: bytes) else {
                        ServerLog.error("cannot write the snapshot of imported session \(id); the import is undone")
                        return context.log.delete(sessionID: id) { [self] in
                            releaseImport(id, serving: nil)
                            completion(.failure(Self.notDurable))
                        }
                    }
                    context.log.flush()
                }
                session.lifetime.touch(context.now())  // the import is a request: the idle clock starts now
                let waiting = session.takeInterruptedEffects()
                releaseImport(id, serving: session)
                completion(.success(Imported(session: session, version: version, state: state)))
                session.start(waiting)
            }
            // `flush` and the snapshot block, so not on the journal's thread (nor an event loop's).
            if durable { DispatchQueue.global().async(execute: finish) } else { finish() }
        }
    }

    /// The import's refusal when its files could not be made durable: nothing of it is kept.
    private static let notDurable = Problem(503, "journal-unavailable", "the session could not be made durable; retry later",
                                            headers: [("Retry-After", "1")])

    /// The session `export` describes, replayed by recovery's own code from the record as
    /// recovery would read it (without encoding and parsing it first); 422 when the state does
    /// not decode or the actions do not replay.
    private func build(_ export: SessionExport) throws(Problem) -> Session {
        let read = SnapshotCoding.Meta(id: export.id, kind: export.kind.name, createdAt: export.createdAt, tokenHash: export.tokenHash,
                                       state: export.state, forkedFrom: nil, ttlSeconds: export.ttlSeconds,
                                       imported: ImportedBase(baseVersion: export.baseVersion, version: export.version,
                                                              actions: export.actions, idempotency: export.idempotency))
        do {
            return try Recovery.rebuild(meta: read, snapshot: nil, records: [], context: context)
        } catch {
            // Which member is wrong: the state when it does not even decode, else the actions.
            _ = try baseState(export)
            throw Problem(422, "invalid-export", "actions: they do not replay from baseVersion \(export.baseVersion) to version \(export.version): \(error)")
        }
    }

    /// The state at `baseVersion`, as the kind encodes it.
    private func baseState(_ export: SessionExport) throws(Problem) -> [UInt8] {
        do {
            return try export.kind.makeStore(state: export.state, version: export.baseVersion, environment: context.effectEnvironment).encodeState()
        } catch {
            throw Problem(422, "invalid-export", "state: does not decode as a \(export.kind.name) state: \(error)")
        }
    }

    /// The metadata record that rebuilds the import after a restart (`ImportedBase`): every
    /// action written into one buffer.
    private func record(_ export: SessionExport) throws(Problem) -> [UInt8] {
        let base = try baseState(export)
        var actions: [UInt8] = [UInt8(ascii: "[")]
        actions.reserveCapacity(export.actions.count * 96)
        for (index, record) in export.actions.enumerated() {
            if index > 0 { actions.append(UInt8(ascii: ",")) }
            RecordCoding.appendAction(record, version: export.baseVersion + index + 1, to: &actions)
        }
        actions.append(UInt8(ascii: "]"))
        var keys = IdempotencyCache(answerBudget: context.idempotencyAnswerBudget)
        for (key, entry) in export.idempotency { keys.insert(key, entry) }
        var idempotency: [UInt8] = []
        SnapshotCoding.appendIdempotency(keys, through: export.version, to: &idempotency)
        return SnapshotCoding.meta(id: export.id, kind: export.kind.name, createdAt: export.createdAt, tokenHash: export.tokenHash, state: base,
                                   ttlSeconds: export.ttlSeconds,
                                   imported: .init(baseVersion: export.baseVersion, version: export.version, actions: actions, idempotency: idempotency))
    }
}
