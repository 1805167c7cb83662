import Foundation
import Dispatch
import Synchronization
import SystemSupport

extension Journal {
    /// Reads every session's files: newest valid snapshot (or the previous one, see `warnings`) plus
    /// the records after it. A torn tail is dropped (the file is truncated to its last complete
    /// append); a damaged session lands in `failures` with its files untouched and refuses appends;
    /// every other session recovers.
    /// Call once, before any other call; a second call returns nothing.
    public func recover() -> JournalRecovery {
        recover(each: nil)
    }

    /// ``recover()``, handing each recovered session to `each` on the reading thread as soon as
    /// its files are read, instead of holding every session's records until all are read: memory
    /// then follows the sessions being read (at most one per reading thread), not the whole
    /// journal. The answer's `sessions` is empty. `expecting` is called once, before the first
    /// session, with the number of sessions found (some may still fail to read).
    ///
    ///     let found = journal.recover(expecting: { _ in }) { session in rebuild(session) }
    public func recover(expecting: (Int) -> Void, each: @escaping @Sendable (RecoveredSession) -> Void) -> JournalRecovery {
        recover(expecting: expecting, each: { session, _ in
            each(session)
            return false
        })
    }

    /// ``recover(expecting:each:)`` where `each` may park the session it is handed: it gets the
    /// note ``park(sessions:)`` would give (nil when the session cannot be parked), and returns
    /// true to keep it: the writer then never opens the session (``readSession(id:parked:)``
    /// does, later). A million idle sessions start without a million writer states.
    ///
    ///     journal.recover(expecting: { _ in }) { session, parked in parked != nil && isIdle(session) }
    public func recover(expecting: (Int) -> Void, parking each: @escaping @Sendable (RecoveredSession, ParkedSession?) -> Bool) -> JournalRecovery {
        recover(expecting: expecting, each: Optional(each))
    }

    private func recover(expecting: (Int) -> Void = { _ in }, each: (@Sendable (RecoveredSession, ParkedSession?) -> Bool)?) -> JournalRecovery {
        let started = DispatchTime.now().uptimeNanoseconds
        let first = recoveryStarted()
        guard first else { return JournalRecovery(sessions: [], failures: [], stats: .init()) }

        var byID: [String: SessionRecovery.Files] = [:]
        var names: [String] = []
        do { names = try disk.list() } catch {
            return JournalRecovery(sessions: [], failures: [(id: "*", reason: "\(error)")], stats: .init())
        }
        for name in names {
            guard let parsed = FileNames.parse(name) else { continue }
            switch parsed {
            case .segment(let id, let seq): byID[id, default: .init(id: id)].segments.append(seq)
            case .snapshot(let id): byID[id, default: .init(id: id)].snapshot = true
            case .snapshotTemp(let id): byID[id, default: .init(id: id)].snapshotTemp = true
            case .snapshotPrevious(let id): byID[id, default: .init(id: id)].previousSnapshot = true
            case .snapshotCorrupt, .tornCopy: continue  // left for inspection; never read
            }
        }
        let all = Array(byID.values)
        expecting(all.count)

        // Files are independent per session. More threads than cores: with a cold page cache the
        // work is waiting for reads, and several reads in flight keep the disk busy.
        let workers = max(1, min(8, all.count / 64))
        let collected = Mutex<[(outcomes: [SessionRecovery.Outcome], stats: JournalRecovery.Stats)]>([])
        let disk = self.disk
        let group = DispatchGroup()
        for w in 0..<workers {
            group.enter()
            NamedThread.start("journal-read-\(w)") {
                var worker = SessionRecovery(disk: disk)
                var outcomes: [SessionRecovery.Outcome] = []
                outcomes.reserveCapacity(all.count / workers + 1)
                var i = w
                while i < all.count {
                    let outcome = worker.recover(all[i])
                    if let each, case .recovered(let session, let files, let warning) = outcome {
                        // Handed on and not kept: its records leave memory once `each` is done.
                        if each(session, files.parked) {
                            if let warning { outcomes.append(.parked(id: session.id, warning: warning)) }
                        } else {
                            outcomes.append(.handedOn(id: session.id, files, warning: warning))
                        }
                    } else {
                        outcomes.append(outcome)
                    }
                    i += workers
                }
                let stats = worker.stats
                collected.withLock { $0.append((outcomes, stats)) }
                group.leave()
            }
        }
        group.wait()

        var sessions: [RecoveredSession] = []
        var failures: [(id: String, reason: String)] = []
        var warnings: [(id: String, message: String)] = []
        var failedMeta: [String: [UInt8]] = [:]
        var adopt: [RecoveredFiles] = []
        var stats = JournalRecovery.Stats()
        sessions.reserveCapacity(all.count)
        adopt.reserveCapacity(all.count)
        for part in collected.withLock({ $0 }) {
            stats.files += part.stats.files
            stats.bytes += part.stats.bytes
            stats.records += part.stats.records
            stats.tornTails += part.stats.tornTails
            stats.discardedSessions += part.stats.discardedSessions
            for o in part.outcomes {
                switch o {
                case .recovered(let s, let f, let warning):
                    sessions.append(s)
                    adopt.append(f)
                    if let warning { warnings.append((id: s.id, message: warning)) }
                case .handedOn(let id, let f, let warning):
                    adopt.append(f)
                    if let warning { warnings.append((id: id, message: warning)) }
                case .parked(let id, let warning):
                    if let warning { warnings.append((id: id, message: warning)) }
                case .failed(let id, let reason, let f):
                    failures.append((id: id, reason: reason))
                    if !f.meta.isEmpty { failedMeta[id] = f.meta }
                    adopt.append(f)
                case .discarded:
                    break
                }
            }
        }
        sessions.sort { $0.id < $1.id }
        failures.sort { $0.id < $1.id }
        warnings.sort { $0.id < $1.id }
        let done = DispatchSemaphore(value: 0)
        if writer.submit(.adopt(adopt, done: { done.signal() })) { done.wait() }
        stats.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return JournalRecovery(sessions: sessions, failures: failures, failedMeta: failedMeta, warnings: warnings, stats: stats)
    }
}

extension Journal {
    /// Reads one session's files as ``recover()`` does, for a server that let the session leave
    /// memory and now needs it again (hibernation). Nil when the journal holds no such session or
    /// its files fail to read (the reason is in the log line the caller writes).
    ///
    /// The caller makes sure nothing is appended to the session meanwhile and that everything
    /// appended before is on disk (``flush()`` after its last append): the files are then
    /// complete, so the read repairs nothing.
    ///
    ///     journal.flush()
    ///     let found = journal.readSession(id: "abc")   // meta, snapshot, records after it
    public func readSession(id: String) -> Result<RecoveredSession, JournalError> {
        guard FileNames.isValidSessionID(id) else { return .failure(.invalidSessionID(id)) }
        let found = Mutex<SessionRecovery.Files?>(nil)
        let done = DispatchSemaphore(value: 0)
        // The writer owns the list of a session's segments; asked in order with its other work,
        // the answer follows every snapshot submitted before.
        guard writer.submit(.files(id: id, done: { files in
            found.withLock { $0 = files }
            done.signal()
        })) else { return .failure(.closed) }
        done.wait()
        guard var files = found.withLock({ $0 }) else { return .failure(.unknownSession(id)) }
        files.previousSnapshot = access(disk.path(FileNames.snapshotPrevious(id)), F_OK) == 0
        var reader = SessionRecovery(disk: disk)
        switch reader.recover(files) {
        case .recovered(let session, _, _): return .success(session)
        case .failed(_, let reason, _): return .failure(.sessionFailed(id, reason: reason))
        case .discarded, .handedOn, .parked: return .failure(.unknownSession(id))
        }
    }
}
