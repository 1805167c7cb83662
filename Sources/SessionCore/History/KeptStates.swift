/// Encoded states kept at some versions, the starting points for time travel
/// and for rebuilding after a refused journal append. Bounded in bytes.
///
/// ```swift
/// var kept = KeptStates(byteBudget: 1 << 20)
/// kept.add(version: 0, bytes: Array(#"{"count":0}"#.utf8))
/// kept.nearest(atOrBefore: 5)?.version  // 0
/// ```
public struct KeptStates: Sendable {
    public private(set) var states: [(version: Int, bytes: [UInt8])] = []
    private var totalBytes = 0
    /// Bytes of the states kept.
    public var bytes: Int { totalBytes }
    public let byteBudget: Int

    public init(byteBudget: Int) { self.byteBudget = byteBudget }

    /// Keeps `bytes` as the state at `version`, the newest from now on (newer ones go); past the
    /// budget the oldest states go, but never the newest one (a state too big for the budget is
    /// still the only way back) nor the one a rollback to `durable` starts from.
    public mutating func add(version: Int, bytes: [UInt8], keepingBaseOf durable: Int? = nil) {
        states.removeAll { $0.version >= version }
        insert(version: version, bytes: bytes, keepingBaseOf: durable)
    }

    /// Keeps `bytes` as the state at `version` among the others, newer ones included; the budget
    /// as in `add`.
    public mutating func insert(version: Int, bytes: [UInt8], keepingBaseOf durable: Int? = nil) {
        states.removeAll { $0.version == version }
        states.insert((version, bytes), at: states.firstIndex { $0.version > version } ?? states.endIndex)
        totalBytes = states.reduce(0) { $0 + $1.bytes.count }
        let base = durable.flatMap { d in states.last { $0.version <= d }?.version }
        while totalBytes > byteBudget,
              let index = states.indices.dropLast().first(where: { states[$0].version != base }) {
            totalBytes -= states.remove(at: index).bytes.count
        }
    }

    /// Drops kept states no longer needed to reach `oldestVersion`: every state
    /// older than the newest one at or before it.
    public mutating func trim(keeping oldestVersion: Int) {
        guard let index = states.lastIndex(where: { $0.version <= oldestVersion }), index > 0 else { return }
        for dropped in states[..<index] { totalBytes -= dropped.bytes.count }
        states.removeFirst(index)
    }

    public mutating func drop(after version: Int) {
        states.removeAll { $0.version > version }
        totalBytes = states.reduce(0) { $0 + $1.bytes.count }
    }

    /// The newest kept state at or before `version`.
    public func nearest(atOrBefore version: Int) -> (version: Int, bytes: [UInt8])? {
        states.last { $0.version <= version }
    }
}
