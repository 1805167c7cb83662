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
        keptStates.nearest(atOrBefore: latestSnapshotBase(durable: durable))?.version
    }

    /// The latest `snapshotBase(durable:)` can be, found in O(1): a host asks the snapshot
    /// schedule with it first (`SnapshotSchedule.isDue`), and looks for the kept state only when due.
    public func latestSnapshotBase(durable: Int) -> Int {
        min(durable, max(durable - length, (history.firstVersion ?? durable + 1) - 1))
    }

    /// Whether a stream can resume after `version` (SSE `Last-Event-ID`): every change after it
    /// through the `durable` version, the newest a client is shown, is still in the ring. A
    /// version past the durable one is as unknown as one past the head.
    public func canResume(after version: Int, durable: Int) -> Bool {
        guard version >= 0, version <= durable else { return false }
        if version == durable { return true }
        guard let first = history.firstVersion else { return false }
        return first <= version + 1
    }
}
