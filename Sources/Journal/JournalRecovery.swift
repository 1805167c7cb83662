/// What `Journal.recover()` found.
public struct JournalRecovery: Sendable {
    /// Sessions ready to replay, sorted by id.
    public let sessions: [RecoveredSession]
    /// Sessions whose journal is damaged (a corrupt record with good records after it, damaged
    /// snapshots with no way back, a version gap). Their files are left untouched; appends to them
    /// are refused.
    public let failures: [(id: String, reason: String)]
    /// The meta record (the bytes given to `createSession`) of each failed session whose meta
    /// record could still be read, by id.
    public let failedMeta: [String: [UInt8]]
    /// Sessions that recovered, but not from their newest snapshot: it was damaged, so they started
    /// from the one before it (or from their first record). The damaged file is kept as
    /// `<id>.snap.corrupt`.
    public let warnings: [(id: String, message: String)]
    /// Counters for logs and benchmarks.
    public let stats: Stats

    init(sessions: [RecoveredSession], failures: [(id: String, reason: String)], failedMeta: [String: [UInt8]] = [:],
         warnings: [(id: String, message: String)] = [], stats: Stats) {
        self.sessions = sessions
        self.failures = failures
        self.failedMeta = failedMeta
        self.warnings = warnings
        self.stats = stats
    }

    public struct Stats: Sendable {
        public var files = 0
        public var bytes = 0
        public var records = 0
        /// Torn tails dropped (file truncated to its last complete record or batch).
        public var tornTails = 0
        /// Sessions whose creation never became durable (no complete meta record), removed.
        public var discardedSessions = 0
        public var seconds = 0.0
    }
}
