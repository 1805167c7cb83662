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
        // The journal answers some refusals (a closed journal) inside `append` itself, on the
        // calling thread, which holds the session's lock: only such an answer moves to another
        // thread. Every other completion runs on the writer thread as it comes, so the order the
        // journal promises per session is kept.
        let caller = pthread_self()
        journal.append(session: sessionID, records: records) { result in
            let mapped = result.mapError { $0 as any Error }
            if pthread_equal(pthread_self(), caller) != 0 {
                DispatchQueue.global().async { completion(mapped) }
            } else {
                completion(mapped)
            }
        }
    }

    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) {
        journal.writeSnapshot(session: sessionID, version: version, bytes: bytes)
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
