/// Where a session's actions go to become durable: the one interface the
/// server's sessions write through, implemented by ``MemoryLog`` (`--in-memory`)
/// and ``JournalLog`` (the data directory).
///
/// Appends of one session arrive in version order and complete in that order.
protocol SessionLog: Sendable {
    /// True when an append is as durable as it will ever be on return, so the
    /// session can answer without waiting for a completion (the in-memory log).
    var completesInline: Bool { get }
    func create(sessionID: String, meta: [UInt8]) throws
    /// `completion` runs on another thread, never inside this call (unless `completesInline`, when it is not called).
    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])],
                completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
    func snapshot(sessionID: String, version: Int, bytes: [UInt8])
    func delete(sessionID: String)
    func close()
}

/// `--in-memory`: nothing is kept, every append is done at once.
struct MemoryLog: SessionLog {
    var completesInline: Bool { true }
    func create(sessionID: String, meta: [UInt8]) throws {}
    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])],
                completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {}
    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) {}
    func delete(sessionID: String) {}
    func close() {}
}
