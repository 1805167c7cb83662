import Journal

/// Where a session's actions go to become durable: the one interface the
/// server's sessions write through, implemented by ``MemoryLog`` (`--in-memory`)
/// and ``JournalLog`` (the data directory).
///
/// Appends of one session arrive in version order and complete in that order.
protocol SessionLog: Sendable {
    /// True when an append is as durable as it will ever be on return, so the
    /// session can answer without waiting for a completion (the in-memory log).
    var completesInline: Bool { get }
    /// Makes the session's metadata durable; `completion` may run on another thread. No I/O thread
    /// waits for the disk: the creating request is answered from the completion.
    func create(sessionID: String, meta: [UInt8], completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
    /// `committer` says who makes the append part of a group (`Committer`). `listener` hears the
    /// outcome (the session: retained, where a closure would be allocated per append), in append
    /// order, never inside this call (unless `completesInline`, when it is not called): on the
    /// journal's thread, or (without a sync to wait for) on the committing loop inside its `commit(loop:)`.
    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])], committer: Committer,
                listener: any JournalAppendListener)
    /// `append(sessionID:records:committer:listener:)` of one record, with no array around it.
    func append(sessionID: String, record: (version: Int, bytes: [UInt8]), committer: Committer, listener: any JournalAppendListener)
    /// From an append's completion: calls `listener.groupCompleted()` on the same thread once the
    /// completions the log is running now (the journal's group) have all run. Elsewhere, at once.
    func afterCompletions(notify listener: any JournalAppendListener)
    /// Commits the appends made with `.eventLoop(loop)` since the loop's last call as one group;
    /// called on event loop `loop` as the last step of each iteration, before it waits for more
    /// work. Never waits for a sync: under `--fsync always` the journal's thread syncs and
    /// completes the group; otherwise it is written and completed here, and what those
    /// completions let run on this loop (a pipelined request) is committed before it returns.
    func commit(loop: Int)
    /// Writes the session's state at `version`; true once it is on disk (false: it could not be
    /// written, and the records stay the session's only copy). An import is complete only then.
    @discardableResult
    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) -> Bool
    /// Returns once everything handed to the log before it, snapshots included, is on disk (an
    /// import waits for its snapshot so). Blocks: never from an I/O thread or a completion.
    func flush()
    /// Reads back one session's files, for a hibernated session's next request: after a `flush`
    /// that followed its last append, and with nothing appended meanwhile. Blocks on the disk.
    func load(sessionID: String) -> Result<RecoveredSession, any Error>
    /// Removes the session's files, then calls `completion` (possibly on another thread).
    func delete(sessionID: String, completion: @escaping @Sendable () -> Void)
    /// Drops what the log keeps per session for sessions leaving memory (after a `flush`); per id,
    /// what reads or deletes it later, or nil when the log keeps it (it is then loaded by id).
    func park(sessionIDs: [String]) -> [ParkedSession?]
    /// `load(sessionID:)` for a session `park` dropped: the log keeps it again.
    func load(sessionID: String, parked: ParkedSession) -> Result<RecoveredSession, any Error>
    /// `delete(sessionID:completion:)` for a session `park` dropped.
    func delete(sessionID: String, parked: ParkedSession, completion: @escaping @Sendable () -> Void)
    func close()
}

extension SessionLog {
    func afterCompletions(notify listener: any JournalAppendListener) { listener.groupCompleted() }
    func append(sessionID: String, record: (version: Int, bytes: [UInt8]), committer: Committer, listener: any JournalAppendListener) {
        append(sessionID: sessionID, records: [record], committer: committer, listener: listener)
    }
    func flush() {}
    func load(sessionID: String) -> Result<RecoveredSession, any Error> { .failure(JournalError.unknownSession(sessionID)) }
    func park(sessionIDs: [String]) -> [ParkedSession?] { sessionIDs.map { _ in nil } }
    func load(sessionID: String, parked: ParkedSession) -> Result<RecoveredSession, any Error> { load(sessionID: sessionID) }
    func delete(sessionID: String, parked: ParkedSession, completion: @escaping @Sendable () -> Void) {
        delete(sessionID: sessionID, completion: completion)
    }
}

/// `--in-memory`: nothing is kept, every append is done at once.
struct MemoryLog: SessionLog {
    var completesInline: Bool { true }
    func create(sessionID: String, meta: [UInt8], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        completion(.success(()))
    }
    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])], committer: Committer,
                listener: any JournalAppendListener) {}
    func commit(loop: Int) {}
    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) -> Bool { true }
    func delete(sessionID: String, completion: @escaping @Sendable () -> Void) { completion() }
    func close() {}
}
