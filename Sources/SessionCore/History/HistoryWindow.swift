import StoreCore

/// A session's history window: the ring of its last actions (`ActionHistory`), the states kept
/// along it (`KeptStates`), and what was applied since the newest kept state. It decides which
/// states are kept and where the window ends, so that every version the action log and SSE resume
/// list can also be rebuilt (`?version=`, replayed answers) and a rollback to the durable version
/// always finds a kept state to start from. A value: the host holds it under its lock, passes in
/// the durable and published versions and the head's state, and replays plans with its store kind.
///
/// ```swift
/// var window = HistoryWindow(length: 100, keepEvery: 10, keptStateBudget: 1 << 20, version: 0, state: store.sharedState())
/// let ahead = window.statesAhead(adding: batch.count, head: store.version, durable: durable,
///                                headState: { store.sharedState() }, rebuild: { try? replay($0).sharedState() })
/// let applied = try store.apply(batch, keepingEvery: window.keepEvery)
/// window.record(applied.changes, keptInside: applied.kept, ahead: ahead, headState: { store.sharedState() },
///               durable: durable, published: published, byteLimit: 64 << 20)
/// let plan = try window.replayPlan(to: 42, head: store.version)  // or VersionGone
/// ```
public struct HistoryWindow: Sendable {
    /// The last actions, with their patches.
    public internal(set) var history: ActionHistory
    /// The states replays start from, kept in step with the ring by the methods below. Settable
    /// so a test can take them away (a session with nothing to rebuild from).
    public var keptStates: KeptStates
    /// The weight of the actions applied since the newest kept state (see `keepHeadIfDue`).
    public internal(set) var bytesSinceKeptState = 0
    /// The weight of the changes since the newest kept state (`changeWeight`): roughly what a
    /// state kept now holds that the one before it does not, its weight in `keptStates`.
    public internal(set) var changeBytesSinceKeptState = 0
    /// `--history`: how many durable, published versions the window lists at least.
    public let length: Int
    /// A state is kept every this many versions.
    public let keepEvery: Int

    /// A window over a store at `version` whose state is `state`, kept as the first starting point.
    public init(length: Int, keepEvery: Int, keptStateBudget: Int, version: Int, state: SharedState) {
        self.length = length
        self.keepEvery = max(1, keepEvery)
        // A keep interval more than `--history`: the ring lets go only through a kept state (`align`).
        history = ActionHistory(capacity: length + self.keepEvery)
        keptStates = KeptStates(byteBudget: keptStateBudget)
        keptStates.add(version: version, state: state, weight: 0)
    }

    /// What one change adds to a kept state's weight: its patch (the values it put in the state)
    /// and a few trie nodes the state no longer shares with the one kept before.
    public static func changeWeight(_ patch: [UInt8]) -> Int { 64 + patch.count }

    /// Records a batch the head just applied: `keptInside`, the states the store kept at
    /// `keepEvery` points inside it (`AnyStore.apply(_:keepingEvery:)`), and `ahead`, what
    /// `statesAhead` computed before it, are kept; then the head's state if due; then the window
    /// is cut where it must be at once. Returns the weight of the entries added.
    @discardableResult
    public mutating func record(_ changes: [Change], keptInside: [(version: Int, state: SharedState)], ahead: [(version: Int, state: SharedState)],
                                headState: () -> SharedState, durable: Int, published: Int, byteLimit: Int) -> Int {
        let oldestKept = keptStates.states.first?.version
        for state in ahead {
            keptStates.insert(version: state.version, state: state.state, weight: changeBytesSinceKeptState, keepingBaseOf: durable)
        }
        // The states at `keepEvery` points inside a batch are kept by the store as it applies
        // it (O(1) each), so a batch of k actions costs O(k × change) whatever the state's size.
        var keptInside = keptInside[...]
        var weight = 0
        // By index: the entry copies the action and patch out of the array in place, where a
        // `for change in changes` copied each whole change (its outputs too) first.
        for index in changes.indices {
            let version = changes[index].version
            let entry = ActionHistory.Entry(version: version, record: changes[index].action, patch: changes[index].patch)
            bytesSinceKeptState += entry.weight
            weight += entry.weight
            changeBytesSinceKeptState += Self.changeWeight(entry.patch)
            // Past `--history`, never a version the subscribers have not been sent yet.
            history.append(entry, keepingAfter: min(durable, published))
            if let kept = keptInside.first, kept.version == version {
                keptStates.add(version: kept.version, state: kept.state, weight: changeBytesSinceKeptState, keepingBaseOf: durable)
                bytesSinceKeptState = 0
                changeBytesSinceKeptState = 0
                keptInside = keptInside.dropFirst()
            }
        }
        guard let first = changes.first?.version, let last = changes.last?.version else { return weight }
        keepHeadIfDue(from: first, to: last, headState: headState, durable: durable, byteLimit: byteLimit)
        // The window is cut once these versions are durable (the host's publication): nothing past
        // the durable version can go before. Except at once when a state kept here pushed the
        // window's base out of the kept states' budget (until the cut, or for good if the journal
        // refuses these actions, the log would list versions no kept state reaches), and when the
        // actions in flight pass the byte budget (the durable ones before them go down to a kept
        // state, so the history holds about the larger of the two, not their sum).
        if keptStates.states.first?.version != oldestKept || history.bytes > byteLimit {
            trim(durable: durable, published: published, byteLimit: byteLimit)
        }
        return weight
    }

    /// Every `keepEvery` versions the head state is kept, a starting point for time travel and
    /// rollback; with large actions also every half `byteLimit`, so what a rollback must replay
    /// (and `trim` must keep) stays within the byte budget. `first...last`: the versions just
    /// applied, `last` the head's. Keeping one is O(1): the kept state shares every unchanged
    /// entity with the head, and `headState` is asked only when one is kept.
    public mutating func keepHeadIfDue(from first: Int, to last: Int, headState: () -> SharedState, durable: Int, byteLimit: Int) {
        let dueByCount = last / keepEvery > (first - 1) / keepEvery
        guard dueByCount || bytesSinceKeptState >= byteLimit / 2 else { return }
        keptStates.add(version: last, state: headState(), weight: changeBytesSinceKeptState, keepingBaseOf: durable)
        bytesSinceKeptState = 0
        changeBytesSinceKeptState = 0
    }

    /// Before `count` more actions go into the history ring, which then lets go of every version
    /// up to `head + count - length`: a rollback to the durable version, and the replay that
    /// keeps states inside a batch (from the head), must still find a kept state they can reach
    /// forward from. When the one they would use is older than what stays, the state they start
    /// from is computed now, while it can still be rebuilt (`rebuild` replays a plan; nil when it
    /// cannot), and handed to `record` to keep once the actions are applied (a refused request
    /// keeps nothing: its states would push older ones out of the budget with the ring not
    /// moving). Only a batch large next to `--history` ever needs this.
    ///
    /// `mutating` though it changes nothing, and inlined: the host then lends its window in place.
    /// A non-mutating call that takes closures made the host copy the whole window first (the
    /// closures could change it), on every request, for the usual case that calls neither.
    @inlinable
    public mutating func statesAhead(adding count: Int, head: Int, durable: Int, headState: () -> SharedState,
                            rebuild: (ReplayPlan) -> SharedState?) -> [(version: Int, state: SharedState)] {
        // The usual case, in O(1): the newest kept state is at or before the durable version (so
        // at or before the head) and stays in reach, so both rebuilds would start from it.
        if let newest = keptStates.states.last?.version, newest <= durable, newest >= head + count - length { return [] }
        return statesAheadOfTheRing(adding: count, head: head, durable: durable, headState: headState, rebuild: rebuild)
    }

    /// `statesAhead` past its usual case.
    @usableFromInline
    func statesAheadOfTheRing(adding count: Int, head: Int, durable: Int, headState: () -> SharedState,
                              rebuild: (ReplayPlan) -> SharedState?) -> [(version: Int, state: SharedState)] {
        let kept = head + count - length  // the ring keeps versions after this
        func reachable(from version: Int, alsoFrom added: Int?) -> Bool {
            var nearest = keptStates.nearest(atOrBefore: version)?.version
            if let added, added <= version, added > nearest ?? .min { nearest = added }
            guard let base = nearest else { return false }
            return base == version || base >= kept
        }
        var states: [(version: Int, state: SharedState)] = []
        if !reachable(from: durable, alsoFrom: nil) {
            let state = durable == head ? headState() : (try? replayPlan(to: durable, head: head)).flatMap(rebuild)
            if let state { states.append((durable, state)) }
        }
        if !reachable(from: head, alsoFrom: states.first?.version) {
            states.append((head, headState()))
        }
        return states
    }
}
