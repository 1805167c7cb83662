/// Where a session's versions stand between its head and the journal: the newest durable version,
/// the newest one published to subscribers, and the appends in flight.
///
/// The head (the store's version) may run ahead of `durableVersion` while appends are in flight;
/// clients and subscribers only ever hear of durable versions. A refused append rolls the head back
/// to `durableVersion` and starts a new epoch, so the answers of appends made before the rollback
/// are recognised as stale when they arrive.
///
/// ```swift
/// var durability = Durability(version: 0)
/// let epoch = durability.appendStarted()          // version 1 handed to the journal
/// durability.appendAnswered(epoch: epoch)         // true: still the epoch it was made in
/// durability.madeDurable(through: 1)              // true: version 1 is durable now
/// ```
public struct Durability: Sendable, Equatable {
    /// The newest version whose actions are as durable as the journal promises.
    public private(set) var durableVersion: Int
    /// The newest version handed to the subscribers; behind `durableVersion` while a fan-out is queued.
    public private(set) var publishedVersion: Int
    /// Appends handed to the journal and not answered yet.
    public private(set) var appendsInFlight = 0
    /// Bumped by a rollback, so the answers of appends made before it are not trusted.
    public private(set) var epoch = 0

    public init(version: Int) {
        durableVersion = version
        publishedVersion = version
    }

    /// The versions a window may let go of: durable and published (what no subscriber still needs).
    public var settledVersion: Int { min(durableVersion, publishedVersion) }

    /// Whether a head at `head` is stuck ahead of the journal: ahead of the durable version with
    /// nothing in flight that could make it durable (a rollback that could not rebuild the head).
    public func isStuck(head: Int) -> Bool { head > durableVersion && appendsInFlight == 0 }

    /// An append handed to the journal; returns the epoch its answer is checked against.
    public mutating func appendStarted() -> Int {
        appendsInFlight += 1
        return epoch
    }

    /// The journal answered an append made in `epoch`: true when no rollback came between (its
    /// result counts), false when it is stale (its versions are already gone).
    @discardableResult
    public mutating func appendAnswered(epoch appendEpoch: Int) -> Bool {
        appendsInFlight -= 1
        return appendEpoch == epoch
    }

    /// Versions through `version` are durable; false when they already were.
    @discardableResult
    public mutating func madeDurable(through version: Int) -> Bool {
        guard version > durableVersion else { return false }
        durableVersion = version
        return true
    }

    /// The versions after the published one through the durable one are handed to the
    /// subscribers now; returns them, nil when there are none.
    public mutating func publishDurable() -> ClosedRange<Int>? {
        guard durableVersion > publishedVersion else { return nil }
        defer { publishedVersion = durableVersion }
        return (publishedVersion + 1)...durableVersion
    }

    /// The head was rebuilt at `version` (the durable one): what came after it is gone, and
    /// answers of appends made before now are stale.
    public mutating func rolledBack(to version: Int) {
        durableVersion = version
        epoch += 1
    }

    /// The head was rebuilt without a journal refusal (recovery): every version up to it is durable
    /// and published.
    public mutating func reset(to version: Int) {
        durableVersion = version
        publishedVersion = version
    }
}
