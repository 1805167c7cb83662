import StoreCore

/// States kept at some versions, the starting points for time travel and for rebuilding after a
/// refused journal append. They are `SharedState` values: keeping one costs O(1), and each shares
/// every unchanged part with the others and with the live state, so what one holds apart is about
/// what changed since the one before. That is its `weight` (the caller's estimate, e.g. the bytes
/// of the actions between them), and the weights are bounded by a budget.
///
/// ```swift
/// var kept = KeptStates(byteBudget: 1 << 20)
/// kept.add(version: 0, state: store.sharedState(), weight: 0)
/// kept.nearest(atOrBefore: 5)?.version  // 0
/// ```
public struct KeptStates: Sendable {
    public struct Kept: Sendable {
        public let version: Int
        public let state: SharedState
        /// Roughly the bytes this state holds that the one before it does not.
        public let weight: Int
    }

    public private(set) var states: [Kept] = []
    private var totalWeight = 0
    /// The weight of the states kept.
    public var bytes: Int { totalWeight }
    public let byteBudget: Int

    public init(byteBudget: Int) { self.byteBudget = byteBudget }

    /// Keeps `state` as the state at `version`, the newest from now on (newer ones go); past the
    /// budget the oldest states go, but never the newest one (the only way back from the head)
    /// nor the one a rollback to `durable` starts from.
    public mutating func add(version: Int, state: SharedState, weight: Int, keepingBaseOf durable: Int? = nil) {
        states.removeAll { $0.version >= version }
        insert(version: version, state: state, weight: weight, keepingBaseOf: durable)
    }

    /// Keeps `state` as the state at `version` among the others, newer ones included; the budget
    /// as in `add`.
    public mutating func insert(version: Int, state: SharedState, weight: Int, keepingBaseOf durable: Int? = nil) {
        states.removeAll { $0.version == version }
        states.insert(Kept(version: version, state: state, weight: weight), at: states.firstIndex { $0.version > version } ?? states.endIndex)
        totalWeight = states.reduce(0) { $0 + $1.weight }
        let base = durable.flatMap { d in states.last { $0.version <= d }?.version }
        while totalWeight > byteBudget,
              let index = states.indices.dropLast().first(where: { states[$0].version != base }) {
            totalWeight -= states.remove(at: index).weight
        }
    }

    /// Drops kept states no longer needed to reach `oldestVersion`: every state
    /// older than the newest one at or before it.
    public mutating func trim(keeping oldestVersion: Int) {
        guard let index = states.lastIndex(where: { $0.version <= oldestVersion }), index > 0 else { return }
        for dropped in states[..<index] { totalWeight -= dropped.weight }
        states.removeFirst(index)
    }

    public mutating func drop(after version: Int) {
        states.removeAll { $0.version > version }
        totalWeight = states.reduce(0) { $0 + $1.weight }
    }

    /// The newest kept state at or before `version`.
    public func nearest(atOrBefore version: Int) -> Kept? {
        states.last { $0.version <= version }
    }
}
