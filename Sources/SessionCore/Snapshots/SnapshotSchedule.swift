/// When a session hands the journal a snapshot, which lets the journal drop the records before it.
///
/// A snapshot is of the newest kept state at or before the start of the history window (the host
/// finds it): snapshotting no later than the window's start keeps the whole window on disk. It is
/// due once that state is `every` versions past the previous snapshot, or `bytes` of actions (at
/// most the window's byte budget) have left the window since; and never before the actions since
/// weigh half the previous snapshot (`logShare`): encoding then costs at most two bytes per byte
/// logged, O(1) per action whatever the state's size, and a restart replays at most half a
/// state's weight of actions after the snapshot (a replayed action costs more per byte than a
/// decoded snapshot).
///
/// ```swift
/// var schedule = SnapshotSchedule(every: 1_000, bytes: 64 << 20)
/// schedule.applied(weight: 40)
/// schedule.take(base: 999, droppedBytes: 0, byteLimit: 64 << 20, lastSnapshotBytes: 0)    // false
/// schedule.take(base: 1_000, droppedBytes: 0, byteLimit: 64 << 20, lastSnapshotBytes: 0)  // true
/// ```
public struct SnapshotSchedule: Sendable, Equatable {
    /// Versions between snapshots.
    public let every: Int
    /// Bytes of actions leaving the window that make a snapshot due sooner.
    public let bytes: Int
    /// The version of the newest snapshot handed to the journal.
    public private(set) var version: Int
    /// The bytes that had left the history window when that snapshot was taken.
    public private(set) var droppedBytesAtSnapshot = 0
    /// The weight of the actions applied since that snapshot.
    public private(set) var bytesSince = 0

    /// The share of the previous snapshot's bytes the actions since must weigh: 1/`logShare`.
    public static let logShare = 2

    public init(every: Int, bytes: Int, version: Int = 0) {
        self.every = every
        self.bytes = bytes
        self.version = version
    }

    /// Actions weighing `weight` were applied.
    public mutating func applied(weight: Int) { bytesSince += weight }

    /// Whether a snapshot of the kept state at `base` is due, with `droppedBytes` gone from a window
    /// of `byteLimit` bytes and the previous snapshot `lastSnapshotBytes` long; when it is, it is
    /// counted as taken.
    public mutating func take(base: Int, droppedBytes: Int, byteLimit: Int, lastSnapshotBytes: Int) -> Bool {
        guard isDue(base: base, droppedBytes: droppedBytes, byteLimit: byteLimit, lastSnapshotBytes: lastSnapshotBytes) else { return false }
        version = base
        droppedBytesAtSnapshot = droppedBytes
        bytesSince = 0
        return true
    }

    /// `take` without taking it. Never true for a base when it is false for a later one: a host
    /// can ask with the latest base it could find, and look for the real one only when due.
    public func isDue(base: Int, droppedBytes: Int, byteLimit: Int, lastSnapshotBytes: Int) -> Bool {
        base > version
            && (base >= version + every || droppedBytes - droppedBytesAtSnapshot >= min(bytes, byteLimit))
            && bytesSince >= lastSnapshotBytes / Self.logShare
    }

    /// A snapshot at `version` reached the journal another way (recovery's base, an import).
    public mutating func wrote(at version: Int) { self.version = version }
}
