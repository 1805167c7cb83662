import Synchronization

/// When a session expires (docs/API.md "Lifecycle"): `ttlSeconds` after its last request or
/// applied action; never when `ttlSeconds` is 0.
///
/// The last activity is an atomic, so a request marks it without the session's lock. What is
/// durable of it is the time of the last applied action (it is in the journal): a restart starts
/// the clock from there, never afresh, so a restart can bring an expiry forward (reads since the
/// last action are not journaled) but never put it off.
///
/// ```swift
/// let lifetime = SessionLifetime(ttlSeconds: 60, lastActivity: now)
/// lifetime.expiresAt   // now + 60,000 ms
/// ```
final class SessionLifetime: Sendable {
    /// Ten years: a longer idleness is "never", which 0 says.
    static let maxTTLSeconds = 315_360_000

    let ttlSeconds: Int
    private let lastActivity: Atomic<Int64>

    init(ttlSeconds: Int, lastActivity: Int64) {
        self.ttlSeconds = ttlSeconds
        self.lastActivity = Atomic(lastActivity)
    }

    /// A request or an action at `now` (milliseconds): the clock starts again. Never goes back.
    func touch(_ now: Int64) {
        guard ttlSeconds > 0 else { return }
        var seen = lastActivity.load(ordering: .relaxed)
        while seen < now {
            let (exchanged, current) = lastActivity.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { return }
            seen = current
        }
    }

    /// Milliseconds since the epoch when the session expires; nil when it never does.
    var expiresAt: Int64? {
        ttlSeconds > 0 ? lastActivity.load(ordering: .relaxed) + Int64(ttlSeconds) * 1_000 : nil
    }

    func hasExpired(at now: Int64) -> Bool {
        expiresAt.map { now >= $0 } ?? false
    }
}

extension Session {
    /// Whether the session is to go now: expired, and not already deleted. Taken under its lock,
    /// so an action applied meanwhile (which restarts the clock) is seen.
    func expiresNow(at now: Int64) -> Bool {
        lock.withLock { !deleted && lifetime.hasExpired(at: now) }
    }
}
