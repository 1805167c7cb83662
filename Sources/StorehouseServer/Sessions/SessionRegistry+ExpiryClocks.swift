/// Expiry clocks that survive a restart (`ExpiryClocks`, docs/API.md "Lifecycle").
extension SessionRegistry {
    /// Appends the clocks that moved since they were last recorded (`SessionLifetime.unrecorded`),
    /// and rewrites the file from the live sessions once the appends have grown it. The sweep
    /// calls it once a second; `exact` (a graceful shutdown) records every clock as it is.
    ///
    /// Not while recovering: the file is rewritten at the end of recovery from what it held at
    /// start, which would drop the lines appended meanwhile.
    func recordExpiryClocks(at now: Int64, exact: Bool = false) {
        guard let clocks = context.expiryClocks, !context.readiness.isRecovering else { return }
        var moved: [(id: String, millis: Int64)] = []
        for session in all {
            if let millis = session.lifetime.unrecorded(now: now, durable: { session.lock.withLock { session.updatedAt } }, exact: exact) {
                moved.append((session.id, millis))
            }
        }
        // A hibernated session's clock moved last while it was resident, and was recorded exactly
        // as it left (`hibernateIdle`): its record has nothing newer to add.
        clocks.append(moved)
        if clocks.wantsCompaction { clocks.rewrite(liveClocks()) }
    }

    /// The clocks of the sessions that unload now (`hibernateIdle`): exact, as they leave memory.
    func recordExpiryClocks(ofHibernated summaries: [SessionSummary], at now: Int64) {
        guard let clocks = context.expiryClocks, !context.readiness.isRecovering else { return }
        clocks.append(summaries.compactMap { summary in
            summary.lifetime.unrecorded(now: now, durable: { summary.updatedAt }, exact: true).map { (summary.id, $0) }
        })
    }

    /// One line per live session with a TTL: the file's whole content when it is rewritten.
    func liveClocks() -> [(id: String, millis: Int64)] {
        sessions.withLock { table in
            var clocks: [(id: String, millis: Int64)] = []
            for session in table.byID.values where session.lifetime.ttlSeconds > 0 {
                clocks.append((session.id, session.lifetime.lastActivityMillis))
            }
            clocks += table.hibernated.clocks()
            return clocks
        }
    }
}
