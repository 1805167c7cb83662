/// When a session's journal snapshot is due: what `Session.journalSnapshotDueLocked` asks once
/// versions become durable, as a value a test can drive.
///
/// A snapshot costs the state's size (encoded, written, synced), so it waits until the actions
/// logged since the last one weigh half that snapshot's bytes (`logShare`): the encoding then
/// costs at most two bytes per byte logged, amortized O(1) per action whatever the state's
/// size, and a restart replays at most half a state's weight of actions after the snapshot (a
/// replayed action costs more per byte than a decoded snapshot: a whole state's weight of them
/// doubled a 1M-task restart). Never while the one before is still being written, and never
/// more often than `every` versions unless large actions left the history window (their records
/// are then on disk only, worth compacting).
///
///     let policy = SnapshotPolicy(every: 10_000, droppedLimit: 64 << 20)
///     policy.isDue(base: 30_000, last: 10_000, droppedSince: 0, loggedSince: 4 << 20, lastBytes: 8 << 20, writing: false)  // true
struct SnapshotPolicy: Sendable {
    /// The least versions between two snapshots (`SessionContext.snapshotEvery`).
    let every: Int
    /// Bytes of actions that left the history window since the last snapshot that make one due
    /// before `every` versions.
    let droppedLimit: Int
    /// The share of the last snapshot's bytes the actions logged since must weigh: 1/`logShare`.
    static let logShare = 2

    /// - Parameters:
    ///   - base: the version the snapshot would be of (a kept state at the history window's start).
    ///   - last: the version of the last snapshot (0: none yet).
    ///   - droppedSince: bytes of actions that left the history window since the last snapshot.
    ///   - loggedSince: the weight of the actions applied since the last snapshot was taken.
    ///   - lastBytes: the last snapshot's size once it was encoded (0 before the first).
    ///   - writing: whether the last snapshot is still being encoded or written.
    func isDue(base: Int, last: Int, droppedSince: Int, loggedSince: Int, lastBytes: Int, writing: Bool) -> Bool {
        guard !writing, base > last, base >= last + every || droppedSince >= droppedLimit else { return false }
        return loggedSince >= lastBytes / Self.logShare
    }
}
