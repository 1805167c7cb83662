import Dispatch
import Journal
import Glibc

/// The data directory as a ``SessionLog``: the ``Journal`` module does the bytes and the fsyncs.
struct JournalLog: SessionLog {
    let journal: Journal

    var completesInline: Bool { false }

    func create(sessionID: String, meta: [UInt8], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        journal.createSession(id: sessionID, meta: meta) { result in completion(result.mapError { $0 as any Error }) }
    }

    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])],
                completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        // On an event loop the append waits for the loop's commit at the end of its iteration
        // (`commitPending`), one group for everything the iteration appended; elsewhere the
        // journal's writer thread is woken for it at once.
        let later = CommitDuty.deferAppend()
        CommitDuty.appending {
            journal.append(session: sessionID, records: records, commitLater: later) { result in
                let mapped = result.mapError { $0 as any Error }
                // The journal answers some refusals (an invalid id) inside `append` itself, where
                // the caller holds the session's lock: only such an answer moves to another thread.
                // Every other completion runs as it comes, so the order the journal promises per
                // session is kept.
                if CommitDuty.isAppending {
                    DispatchQueue.global().async { completion(mapped) }
                } else {
                    completion(mapped)
                }
            }
        }
    }

    func afterCompletions(_ body: @escaping @Sendable () -> Void) {
        journal.afterGroupCompletes(body)
    }

    func commitPending() {
        CommitDuty.commitIfPending { journal.commit() }
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
