import Glibc
import Synchronization
import Dispatch

extension Journal {
    /// Drops the writer's state of each session in `ids` (descriptor, buffers, segment list), for
    /// a caller that lets the sessions leave memory; what comes back, per id, is all it needs to
    /// read a session back (``readSession(id:parked:)``) or delete it (``deleteSession(id:parked:)``).
    /// Nil for a session that stays open: unknown, failed, or with a write no sync covers yet
    /// (call ``flush()`` first).
    ///
    /// The caller appends nothing to a parked session; appends, snapshots and ``deleteSession(id:)``
    /// treat it as unknown. A parked session's last write is not sealed at ``close()``: a torn
    /// write there reads as a torn tail, as after a crash.
    ///
    ///     journal.flush()
    ///     let parked = journal.park(sessions: ["abc"])   // [ParkedSession?]
    public func park(sessions ids: [String]) -> [ParkedSession?] {
        guard !ids.isEmpty, !writer.isCurrentThread else { return ids.map { _ in nil } }
        let result = Mutex<[ParkedSession?]>(ids.map { _ in nil })
        let done = DispatchSemaphore(value: 0)
        guard writer.submit(.park(ids: ids, done: { parked in
            result.withLock { $0 = parked }
            done.signal()
        })) else { return ids.map { _ in nil } }
        done.wait()
        return result.withLock { $0 }
    }

    /// Reads a parked session's files as ``recover()`` does and opens it again: appends and
    /// snapshots go on as before it was parked. Blocks on the disk.
    public func readSession(id: String, parked: ParkedSession) -> Result<RecoveredSession, JournalError> {
        guard FileNames.isValidSessionID(id) else { return .failure(.invalidSessionID(id)) }
        var files = SessionRecovery.Files(id: id)
        files.segments = existingSegments(id: id, parked: parked)
        files.snapshot = access(disk.path(FileNames.snapshot(id)), F_OK) == 0
        files.previousSnapshot = access(disk.path(FileNames.snapshotPrevious(id)), F_OK) == 0
        var reader = SessionRecovery(disk: disk)
        let found: RecoveredFiles
        let session: RecoveredSession
        switch reader.recover(files) {
        case .recovered(let s, let f, _): (session, found) = (s, f)
        case .failed(_, let reason, _): return .failure(.sessionFailed(id, reason: reason))
        case .discarded, .handedOn, .parked: return .failure(.unknownSession(id))
        }
        let opened = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        guard writer.submit(.reopen(found, done: { ok in
            opened.withLock { $0 = ok }
            done.signal()
        })) else { return .failure(.closed) }
        done.wait()
        return opened.withLock { $0 } ? .success(session) : .failure(.sessionExists(id))
    }

    /// Removes every file of a parked session; returns once they are gone.
    public func deleteSession(id: String, parked: ParkedSession) {
        guard FileNames.isValidSessionID(id) else { return }
        let segments = existingSegments(id: id, parked: parked)
        if writer.isCurrentThread {
            writer.submit(.deleteParked(id: id, segments: segments, done: {}))
            return
        }
        let done = DispatchSemaphore(value: 0)
        if writer.submit(.deleteParked(id: id, segments: segments, done: { done.signal() })) { done.wait() }
    }

    /// The segment numbers in the parked range whose files exist (a compaction may leave gaps).
    private func existingSegments(id: String, parked: ParkedSession) -> [Int] {
        guard parked.firstSegment <= parked.lastSegment else { return [] }
        return (Int(parked.firstSegment)...Int(parked.lastSegment)).filter { access(disk.path(FileNames.segment(id, $0)), F_OK) == 0 }
    }
}
