/// Non-blocking and `async` forms of the calls the server makes, over the same writer queue.
extension Journal {
    /// `createSession` without blocking the caller: `completion` runs (on the writer thread) once the
    /// meta record is durable, or with the reason it was refused.
    public func createSession(id: String, meta: [UInt8], completion: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        guard FileNames.isValidSessionID(id) else {
            completion(.failure(.invalidSessionID(id)))
            return
        }
        if !writer.submit(.create(id: id, meta: meta, done: completion)) { completion(.failure(.closed)) }
    }

    /// `append`, awaiting its completion.
    ///
    ///     if case .failure = await journal.append(session: id, records: [(version: v, bytes: line)]) { /* 503 */ }
    public func append(session: String, records: [(version: Int, bytes: [UInt8])]) async -> Result<Void, JournalError> {
        await withCheckedContinuation { continuation in
            append(session: session, records: records) { continuation.resume(returning: $0) }
        }
    }
}
