import Journal

/// The data directory as a ``SessionLog``: the ``Journal`` module does the bytes and the fsyncs.
struct JournalLog: SessionLog {
    let journal: Journal

    var completesInline: Bool { false }

    func create(sessionID: String, meta: [UInt8]) throws {
        try journal.createSession(id: sessionID, meta: meta)
    }

    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])],
                completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        journal.append(session: sessionID, records: records) { result in
            completion(result.mapError { $0 as any Error })
        }
    }

    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) {
        journal.writeSnapshot(session: sessionID, version: version, bytes: bytes)
    }

    func delete(sessionID: String) { journal.deleteSession(id: sessionID) }

    func close() { journal.close() }
}
