/// A session's part in the server's memory budget (`MemoryBudget`): what it holds is charged
/// after each write, each trim of its windows and once a second (the heartbeat, which also sees
/// subscriber buffers drain), and released when it is deleted.
///
/// While the budget shrinks windows, a session lets go of its kept idempotency answers (a
/// repeat renders its answer again from history, as after a restart) and shortens its history to
/// its share of the budget, so history and answers leave memory before any write is refused.
extension Session {
    /// Bytes of actions the history keeps: `historyBytes`, or the session's share of the budget
    /// while it shrinks windows (states are then kept at half of it, so the cut finds one, and a
    /// journal snapshot is due once that much has left the window, so a restart replays no more).
    var historyByteLimitLocked: Int {
        let budget = context.memoryBudget
        return budget.shouldShrink ? min(context.historyBytes, budget.historyShare) : context.historyBytes
    }

    /// What the budget counts for this session now; the subscribers' unsent bytes as of the last
    /// `countingSubscribers` settlement (the heartbeat's), or counted now.
    func heldBytesLocked(countingSubscribers: Bool = false) -> Int {
        if countingSubscribers {
            budgetSubscriberBytes = subscribers.values.reduce(0) { $0 + $1.stream.pendingBytes }
        }
        return MemoryBudget.sessionOverhead + stateBytesLocked + window.history.bytes + window.keptStates.bytes + machine.ledger.answerBytes
            + (cachedState?.response.body.count ?? 0) + budgetSubscriberBytes
    }

    /// The live state, by the size of its newest encoding: a journal snapshot or a full answer.
    /// Kept states are charged only what they do not share with it (their weights), so without
    /// this a session of a million entities counted as its last few thousand actions. A lower
    /// bound: encoded, 1M `tasks` are 72 MB, held 132 MiB (`storehouse-bench bigstore`); a
    /// session answered only with `Prefer: return=minimal` in memory counts none of it, and the
    /// budget's resident sample is what sees it then.
    var stateBytesLocked: Int {
        max(journalSnapshotBytes.load(ordering: .relaxed), cachedState?.stateRange.count ?? 0)
    }

    /// Charges what changed since the last settlement; first shrinks the windows when the
    /// budget asks for it. `countingSubscribers`: walk the event streams too (once a second).
    func settleBudgetLocked(countingSubscribers: Bool = false) {
        let budget = context.memoryBudget
        if deleted {
            budget.settle(&budgetCharged, holding: 0)
            return
        }
        if budget.shouldShrink {
            machine.ledger.letGoOfAnswers()
            if history.bytes > budget.historyShare { trimHistoryLocked() }
        }
        budget.settle(&budgetCharged, holding: heldBytesLocked(countingSubscribers: countingSubscribers))
    }

    /// The once-a-second settlement, from the heartbeat.
    func settleBudget() {
        lock.withLock { settleBudgetLocked(countingSubscribers: true) }
    }
}
