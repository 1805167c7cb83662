import StoreCore

extension HistoryWindow {
    /// Recovery's replay of the `count` journal records after the snapshot at `base`: it runs
    /// them through `run` (indices into the records, 0 the one after `base`) in runs that end at
    /// `keepEvery` points and keeps the states there as the live window would have kept them.
    /// Without them, once the records outnumber `length`, the window would start after the base
    /// and none of its versions but the head could be rebuilt. Only points the window (`length`
    /// back from the head) can start from are kept, weighed as the live window weighs them (the
    /// changes since the state before), and no more of them than `keptStateBudget` holds.
    /// `state` is the replaying store's state, asked once per state kept. The result goes to
    /// `restore`.
    ///
    /// ```swift
    /// let replayed = try HistoryWindow.replayKeepingStates(records.count, after: snapshotVersion, length: 100,
    ///                                                      keepEvery: 10, keptStateBudget: 1 << 20, state: { store.sharedState() }) {
    ///     try store.replay(Array(records[$0]))
    /// }
    /// window.restore(replayed.changes, base: (snapshotVersion, base), keptAlong: replayed.keptAlong, …)
    /// ```
    public static func replayKeepingStates(_ count: Int, after base: Int, length: Int, keepEvery: Int, keptStateBudget: Int,
                                           state: () -> SharedState, run: (Range<Int>) throws -> [Change]) rethrows
        -> (changes: [Change], keptAlong: [(version: Int, state: SharedState, weight: Int)]) {
        let keepEvery = max(1, keepEvery)
        let head = base + count
        var changes: [Change] = []
        var keptAlong: [(version: Int, state: SharedState, weight: Int)] = []
        var keptWeight = 0
        var start = 0
        while start < count {
            let point = ((base + start) / keepEvery + 1) * keepEvery
            let end = min(count, point - base)
            let replayed = try run(start..<end)
            changes += replayed
            if end < count, point >= head - length - keepEvery {
                let weight = replayed.reduce(0) { $0 + changeWeight($1.patch) }
                keptAlong.append((point, state(), weight))
                keptWeight += weight
                while keptWeight > keptStateBudget, keptAlong.count > 1 { keptWeight -= keptAlong.removeFirst().weight }
            }
            start = end
        }
        return (changes, keptAlong)
    }

    /// Installs what recovery replayed: `changes` after the journal's `base`, and `keptAlong`,
    /// states at versions between the base and the head kept on the way, in order. The host then
    /// calls `trim` once its durable and published versions are known.
    public mutating func restore(_ changes: [Change], base: (version: Int, state: SharedState),
                                 keptAlong: [(version: Int, state: SharedState, weight: Int)], head: Int, headState: () -> SharedState,
                                 byteLimit: Int, rebuild: (ReplayPlan) -> SharedState?) {
        for change in changes { history.append(.init(version: change.version, record: change.action, patch: change.patch)) }
        guard !changes.isEmpty else { return }
        // The base the journal replayed from is what time travel replays from.
        keptStates = KeptStates(byteBudget: keptStates.byteBudget)
        keptStates.add(version: base.version, state: base.state, weight: 0)
        // Past the byte budget the window starts later than the base: keep the state there
        // (a replay of the records before it), so every version after it can be rebuilt.
        if let start = history.versionToDropThrough(toFit: byteLimit), start > base.version, start < head,
           let plan = try? replayPlan(to: start, head: head), let rebuilt = rebuild(plan) {
            keptStates.add(version: start, state: rebuilt, weight: 0)
        }
        // After the states above (adding a state drops the newer ones), in order.
        let newest = keptStates.states.last?.version ?? base.version
        for kept in keptAlong where kept.version > newest && kept.version < head {
            keptStates.add(version: kept.version, state: kept.state, weight: kept.weight)
        }
        keptStates.add(version: head, state: headState(), weight: 0)
    }
}
