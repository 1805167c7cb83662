import Synchronization

/// Hibernation (docs/API.md "Lifecycle"): a session nothing holds leaves memory, and the registry
/// keeps a `SessionSummary` of it until its next request loads it back from the journal.
extension Session {
    /// Whether the session looks idle since `threshold` (milliseconds) without taking its lock:
    /// the sweep's first pass, checked again under the lock by `hibernationSummary`.
    func mayHibernate(idleSince threshold: Int64) -> Bool {
        !damaged && lastUsed.load(ordering: .relaxed) <= threshold && !hasSubscribers.load(ordering: .relaxed)
            && !hasParkedReads.load(ordering: .relaxed) && effectsRunning.load(ordering: .relaxed) == 0 && !lane.isBusy
    }

    /// The summary the registry keeps in its place, when nothing holds the session and its head is
    /// `expectedVersion` (the version a journal flush made durable on disk); nil otherwise. Its
    /// memory-budget charge is released with it: the session object is not served again.
    func hibernationSummary(expectedVersion: Int) -> SessionSummary? {
        lock.withLock {
            guard !deleted, !damaged, store.version == expectedVersion, durableVersion == expectedVersion,
                  publishedVersion == expectedVersion, durability.appendsInFlight == 0, pendingOutputs.isEmpty, !publishScheduled,
                  subscribers.isEmpty, machine.subscribers.isEmpty, machine.parked.isEmpty, waitingRepeats.isEmpty,
                  replayedEffects.isEmpty, effectsRunning.load(ordering: .relaxed) == 0,
                  // Requests queued off the event loop hold it too: they apply to this object.
                  !lane.isBusy else { return nil }
            return SessionSummary(id: id, kind: kind, tokenHash: tokenHash, version: durableVersion, createdAt: createdAt,
                                  updatedAt: updatedAt, lifetime: lifetime, forkedFrom: forkedFrom)
        }
    }

    /// Releases what the memory budget counts for this session, once it left the registry.
    func releaseBudget() {
        lock.withLock { context.memoryBudget.settle(&budgetCharged, holding: 0) }
    }
}
