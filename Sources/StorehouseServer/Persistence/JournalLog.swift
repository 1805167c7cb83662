import Dispatch
import Journal
import Synchronization

/// The data directory as a ``SessionLog``: the ``Journal`` module does the bytes and the fsyncs.
struct JournalLog: SessionLog {
    let journal: Journal

    var completesInline: Bool { false }

    func create(sessionID: String, meta: [UInt8]) throws {
        try journal.createSession(id: sessionID, meta: meta)
    }

    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])],
                completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        // The journal answers some refusals (a closed journal) inside `append` itself; the
        // session calls this under its lock, so such an answer is moved to another thread.
        let returned = ReturnFlag()
        journal.append(session: sessionID, records: records) { result in
            let mapped = result.mapError { $0 as any Error }
            if returned.isSet { completion(mapped) } else { DispatchQueue.global().async { completion(mapped) } }
        }
        returned.set()
    }

    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) {
        journal.writeSnapshot(session: sessionID, version: version, bytes: bytes)
    }

    func delete(sessionID: String) { journal.deleteSession(id: sessionID) }

    func close() { journal.close() }
}

/// Set once `append` has returned.
private final class ReturnFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
