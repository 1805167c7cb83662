import Dispatch
import Journal

/// The data directory as a ``SessionLog``: the ``Journal`` module does the bytes and the fsyncs.
struct JournalLog: SessionLog {
    let journal: Journal
    /// The event loops that appended in their current iteration (`Committer.eventLoop`).
    let loops: LoopCommits

    /// `eventLoops`: how many I/O threads the server runs (`HTTPServerConfiguration.ioThreads`).
    init(journal: Journal, eventLoops: Int) {
        self.journal = journal
        loops = LoopCommits(loops: eventLoops)
    }

    var completesInline: Bool { false }

    func create(sessionID: String, meta: [UInt8], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        journal.createSession(id: sessionID, meta: meta) { result in completion(result.mapError { $0 as any Error }) }
    }

    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])], committer: Committer,
                listener: any JournalAppendListener) {
        journal.append(session: sessionID, records: records, commitLater: commitsLater(committer), listener: listener)
    }

    func append(sessionID: String, record: (version: Int, bytes: [UInt8]), committer: Committer, listener: any JournalAppendListener) {
        journal.append(session: sessionID, record: record, commitLater: commitsLater(committer), listener: listener)
    }

    /// Whether an append by `committer` waits for a loop's commit. An event loop's append waits
    /// for that loop's commit at the end of its iteration, one group for everything the iteration
    /// appended; any other waits for no one: the journal's writer thread is woken for it at once.
    /// The journal never calls the listener inside `append` (the caller holds the session's lock),
    /// so every outcome is heard as it comes and the order the journal promises per session is kept.
    private func commitsLater(_ committer: Committer) -> Bool {
        guard case .eventLoop(let loop) = committer else { return false }
        return loops.markPending(loop)
    }

    func afterCompletions(notify listener: any JournalAppendListener) {
        journal.afterGroupCompletes(notify: listener)
    }

    func commit(loop: Int) {
        // Under `batch` and `never` the group completes inside `commit()`, on this loop: an
        // answer sent there may let a pipelined request run and append with `.eventLoop(loop)`
        // again; that goes in another group before the loop waits.
        while loops.takePending(loop) { journal.commit() }
    }

    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) -> Bool {
        journal.writeSnapshot(session: sessionID, version: version, bytes: bytes)
    }

    func flush() { journal.flush() }

    func load(sessionID: String) -> Result<RecoveredSession, any Error> {
        journal.readSession(id: sessionID).mapError { $0 as any Error }
    }

    func park(sessionIDs: [String]) -> [ParkedSession?] { journal.park(sessions: sessionIDs) }

    func load(sessionID: String, parked: ParkedSession) -> Result<RecoveredSession, any Error> {
        journal.readSession(id: sessionID, parked: parked).mapError { $0 as any Error }
    }

    func delete(sessionID: String, parked: ParkedSession, completion: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async {
            journal.deleteSession(id: sessionID, parked: parked)
            completion()
        }
    }

    func delete(sessionID: String, completion: @escaping @Sendable () -> Void) {
        // The journal's delete waits for the files to go; that wait happens here, off the I/O threads.
        DispatchQueue.global().async {
            journal.deleteSession(id: sessionID)
            completion()
        }
    }

    func close() { journal.close() }
}
