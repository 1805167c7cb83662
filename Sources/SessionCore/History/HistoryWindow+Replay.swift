import StoreCore

extension HistoryWindow {
    /// The kept state to start from and the history entries that lead from it to `version`;
    /// `head` is the store's version (what `oldestVersion` falls back to).
    public func replayPlan(to version: Int, head: Int) throws(VersionGone) -> ReplayPlan {
        guard let base = keptStates.nearest(atOrBefore: version) else { throw VersionGone(version: version, oldest: oldestVersion(head: head)) }
        let entries = base.version < version ? history.entries((base.version + 1)...version) : []
        guard entries.count == version - base.version else { throw VersionGone(version: version, oldest: oldestVersion(head: head)) }
        return ReplayPlan(base: (base.version, base.state), entries: entries)
    }

    /// The oldest version from which every newer one can still be rebuilt: the first kept state
    /// the history reaches forward from (an older kept state may lack the actions just after it).
    public func oldestVersion(head: Int) -> Int {
        let reach = (history.firstVersion ?? head + 1) - 1
        return keptStates.states.first { $0.version >= reach }?.version ?? head
    }

    /// Forgets what came after `version`, where the host just rebuilt its head (a rolled-back
    /// append): the ring's entries and the kept states after it go, and the bytes since the
    /// newest kept state are counted again from what stays.
    public mutating func rollBack(to version: Int) {
        history.truncate(after: version)
        keptStates.drop(after: version)
        let newestKept = keptStates.nearest(atOrBefore: version)?.version ?? version
        let since = newestKept < version ? history.entries((newestKept + 1)...version) : []
        bytesSinceKeptState = since.reduce(0) { $0 + $1.weight }
        changeBytesSinceKeptState = since.reduce(0) { $0 + Self.changeWeight($1.patch) }
    }

    /// The kept state a journal snapshot is taken at, once `durable` is: at or before the
    /// window's start, `length` versions back or later when large actions ended the window sooner.
    public func snapshotBase(durable: Int) -> Int? {
        let windowStart = max(durable - length, (history.firstVersion ?? durable + 1) - 1)
        return keptStates.nearest(atOrBefore: min(durable, windowStart))?.version
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
