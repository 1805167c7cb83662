import SessionCore
import StoreCore

extension Session {
    /// The encoded state at `version`. Replaying from a kept state and encoding happen outside
    /// the lock, so a long time-travel read never holds up the session's writers.
    func state(at version: Int) throws(Problem) -> [UInt8] {
        let plan = try lockedReplayPlan(to: version)
        if plan.entries.isEmpty { return plan.base.state.encode() }
        return try replayed(plan, to: version).encodeState()
    }

    /// The bytes of the value at `pointer` in the state at `version`, nil when none: the replay
    /// from the nearest kept state, then only that value is encoded (one entity of a table, not
    /// the table).
    func value(at version: Int, pointer: JSONPointer) throws(Problem) -> [UInt8]? {
        let plan = try lockedReplayPlan(to: version)
        if plan.entries.isEmpty { return plan.base.state.encodedValue(at: pointer) }
        return try replayed(plan, to: version).encodedState(at: pointer)
    }

    private func replayed(_ plan: ReplayPlan, to version: Int) throws(Problem) -> any AnyStore {
        do {
            return try replay(plan)
        } catch {
            ServerLog.error("session \(id): replay to version \(version) failed: \(error)")
            throw Problem(500, "replay-failed", "the state at version \(version) could not be rebuilt")
        }
    }

    private func lockedReplayPlan(to version: Int) throws(Problem) -> ReplayPlan {
        lock.lock()
        defer { lock.unlock() }
        // Only durable versions are shown (see `answerWhenDurable`); once durable, one stays.
        guard version >= 0, version <= durableVersion else {
            throw Problem(404, "version-not-found", "version \(version) is ahead of the session (at \(durableVersion))",
                          extra: [("currentVersion", .int(durableVersion))])
        }
        if version == store.version { return ReplayPlan(base: (version, store.sharedState()), entries: []) }
        return try replayPlanLocked(to: version)
    }

    /// The bytes of the value at an RFC 6901 pointer in the head state, as in its encoding.
    func valueLocked(at pointer: JSONPointer) -> (version: Int, value: [UInt8]?) {
        (store.version, store.encodedState(at: pointer))
    }

    /// One page of the action log: `{"actions":[…],"next":V|null}`.
    func logPage(since: Int?, limit: Int) throws(Problem) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        // The log ends at the newest durable action (see `answerWhenDurable`).
        let head = durableVersion
        let oldest = history.firstVersion ?? head + 1
        let start = since ?? (oldest - 1)
        guard start >= oldest - 1 else {
            // The oldest `since` still served, so a client can page on from it.
            throw Problem(404, "version-not-found", "actions after \(start) are no longer kept; the log starts after version \(oldest - 1)",
                          extra: [("oldestVersion", .int(oldest - 1))])
        }
        guard start <= head else {
            throw Problem(404, "version-not-found", "version \(start) is ahead of the session (at \(head))",
                          extra: [("currentVersion", .int(head))])
        }
        let end = min(head, start + limit)
        var body = Array(#"{"actions":["#.utf8)
        if end > start {
            for (index, entry) in history.entries((start + 1)...end).enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body += RecordCoding.action(entry.record, version: entry.version)
            }
        }
        body += Array(#"],"next":"#.utf8)
        body += Array((end < head ? String(end) : "null").utf8)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// Subscribers now open, for the metadata answer.
    var subscriberCount: Int { lock.withLock { subscribers.count } }
}
