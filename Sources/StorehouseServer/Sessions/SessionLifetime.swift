import Synchronization

/// When a session expires (docs/API.md "Lifecycle"): `ttlSeconds` after its last request or
/// applied action; never when `ttlSeconds` is 0.
///
/// The last activity is an atomic, so a request marks it without the session's lock. What is
/// durable of it is the time of the last applied action (it is in the journal) and the last
/// request the expiry clocks' file holds (`ExpiryClocks`): a restart starts the clock from the
/// later of the two, never afresh.
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
    /// The newest activity known to survive a restart (`ExpiryClocks`, or an action's record).
    private let recorded: Atomic<Int64>

    init(ttlSeconds: Int, lastActivity: Int64) {
        self.ttlSeconds = ttlSeconds
        self.lastActivity = Atomic(lastActivity)
        recorded = Atomic(lastActivity)
    }

    /// The last activity, when the expiry clocks' file is to hear of it at `now`: it is later than
    /// what survives a restart (`durable`: the last applied action), and either the session has
    /// been idle since for a tenth of its TTL (at most a minute), or what was recorded is that
    /// old. So a session read all the time costs a line per tenth of its TTL, an idle one's
    /// exact clock is recorded once, and a crash brings an expiry forward by at most that much.
    /// `exact`: whatever the time (a graceful shutdown).
    /// `durable` is asked only when the clock moved since it was last recorded.
    func unrecorded(now: Int64, durable: () -> Int64, exact: Bool = false) -> Int64? {
        guard ttlSeconds > 0 else { return nil }
        let last = lastActivity.load(ordering: .relaxed)
        guard last > recorded.load(ordering: .relaxed) else { return nil }
        let known = max(recorded.load(ordering: .relaxed), durable())
        guard last > known else {
            // The last action is the clock, and on disk: nothing to ask until the clock moves again.
            recorded.store(last, ordering: .relaxed)
            return nil
        }
        let every = min(Int64(ttlSeconds) * 100, 60_000)
        guard exact || now - last >= every || last - known >= every else { return nil }
        recorded.store(last, ordering: .relaxed)
        return last
    }

    /// What the expiry clocks' file held at start: the clock goes on from there, and it is on disk.
    func restore(recorded millis: Int64) {
        touch(millis)
        var seen = recorded.load(ordering: .relaxed)
        while seen < millis {
            let (exchanged, current) = recorded.compareExchange(expected: seen, desired: millis, ordering: .relaxed)
            if exchanged { return }
            seen = current
        }
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

    /// The last request or action, in milliseconds since the epoch (only kept with a `ttlSeconds`).
    var lastActivityMillis: Int64 { lastActivity.load(ordering: .relaxed) }

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
