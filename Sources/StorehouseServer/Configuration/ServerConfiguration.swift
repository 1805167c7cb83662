import SessionCore

/// Everything the server can be told at start, with the defaults of the README's configuration table.
///
/// Built from flags and environment variables by ``ServerConfiguration/parse(arguments:environment:)``;
/// a flag wins over its variable.
public struct ServerConfiguration: Sendable, Equatable {
    public enum Fsync: String, Sendable, CaseIterable { case always, batch, never }
    /// `open`: anyone who reaches the port creates sessions; `admin`: only a holder of the admin token.
    public enum CreationPolicy: String, Sendable, CaseIterable { case open, admin }

    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "./data"
    public var fsync = Fsync.always
    public var inMemory = false
    public var maxBodyBytes = 1 << 20
    public var maxSessions = 100_000
    public var maxConnections = 10_000
    /// Event-loop threads; nil means one per active core.
    public var ioThreads: Int?
    public var effectLatencyMilliseconds = 50
    public var heartbeatSeconds = 15
    public var history = 10_000
    public var subscriberBufferBytes = 1 << 20
    public var shutdownGraceSeconds = 10
    public var accessLog = true
    /// The operator's bearer (`--admin-token`): the admin routes need it, and it opens every
    /// session; nil leaves the admin routes answering 403 `admin-disabled`.
    public var adminToken: AdminToken?
    /// Who may `POST /sessions` (`--create-sessions`).
    public var createSessions = CreationPolicy.open
    /// Seconds without a request or an applied action after which a session is deleted, for a
    /// session created without its own `ttlSeconds` (`--session-ttl-s`); 0: never.
    public var sessionTTLSeconds = 0
    /// Seconds without a request, an event stream or an effect after which a session leaves
    /// memory until its next request (`--hibernate-after-s`); 0: never. No effect with
    /// `inMemory`, where memory is the only copy.
    public var hibernateAfterSeconds = 300
    /// Bytes the server may hold (`--max-memory`); nil: half the machine's memory or cgroup limit.
    public var maxMemory: Int?
    /// JSON bytes of one action's `payload` and `meta` together (`--max-action-bytes`).
    public var maxActionBytes = 256 << 10
    /// Whether the process's resident memory counts against `maxMemory` besides the sessions'
    /// charges (no flag: tests run many servers in one process and turn it off).
    var memoryBudgetCountsResident = true
    /// This node's id in a cluster (API.md "Cluster"): new session ids are `<nodeID>.<random>`;
    /// nil for a single server.
    public var nodeID: String?
    /// Bytes of first answers a session keeps for its `Idempotency-Key`s (no flag: a bound,
    /// not a setting; tests lower it).
    var idempotencyAnswerBudget = IdempotencyCache.defaultAnswerBudget
    /// Bytes of actions a session's history keeps, besides `history`'s count (no flag, as above).
    var historyBytes = 64 << 20
    /// Bytes of kept states per session (time travel and rollback start from them); tests make it small.
    var keptStateBudget = 64 << 20
    /// Subscribers from which a session publishes off the thread that made a change durable (no
    /// flag, as above): below it the hop would cost more than the writes.
    var fanOutInlineLimit = 256
    /// Milliseconds a read of the head waits for it to be durable before it is answered 503 (no
    /// flag: a stalled disk must not hold a GET for ever; tests shorten it).
    var durableReadDeadlineMillis: Int64 = 10_000
    /// A request body past this many bytes (a batch of a few hundred actions, about a
    /// millisecond to read and apply) is handled off the event loop (no flag: a bound; tests lower it).
    var offLoopBodyBytes = 16 << 10
    /// A state whose encoding passes this many bytes is encoded off the event loop: a full POST
    /// answer, a GET of the head, a new subscriber's snapshot, an export (no flag, as above).
    var offLoopStateBytes = 256 << 10

    public init() {}
}
