import StoreCore

/// Where a replay starts (a kept state) and the logged actions it applies: what rebuilding the
/// state at a version takes (`HistoryWindow.replayPlan(to:head:)`). The host replays it with its
/// store kind, outside its lock if it likes: a plan holds values only.
///
/// ```swift
/// let plan = try window.replayPlan(to: 7, head: 12)
/// plan.base.version            // the kept state at or before 7
/// plan.entries.map(\.version)  // base.version + 1 ... 7
/// ```
public struct ReplayPlan: Sendable {
    public let base: (version: Int, state: SharedState)
    public let entries: [ActionHistory.Entry]

    public init(base: (version: Int, state: SharedState), entries: [ActionHistory.Entry]) {
        self.base = base
        self.entries = entries
    }
}
