/// Groups whose writes a failed sync may have lost: written after the last sync known good and
/// before one that failed. Several failures make one range (wider than needed, never narrower).
struct SyncFailures: Sendable {
    private var range: ClosedRange<Int>?

    /// The groups after `good` through `failed`.
    mutating func add(after good: Int, through failed: Int) {
        guard failed > good else { return }
        let new = (good + 1)...failed
        range = range.map { min($0.lowerBound, new.lowerBound)...max($0.upperBound, new.upperBound) } ?? new
    }

    mutating func add(_ other: SyncFailures) {
        if let r = other.range { add(after: r.lowerBound - 1, through: r.upperBound) }
    }

    func contains(_ group: Int) -> Bool { range?.contains(group) ?? false }
}
