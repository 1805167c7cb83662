/// Counters of one journal since it was opened.
public struct JournalStatistics: Sendable, Equatable {
    /// Groups the writer thread processed (each: one write per session, at most one sync round).
    public var groups = 0
    /// `append` calls accepted and the records they carried.
    public var appends = 0
    public var records = 0
    /// `fdatasync`/`fsync`/`syncfs` calls made (files, directory, snapshots).
    public var syncCalls = 0
    /// Appends refused because a write or a sync failed.
    public var failedWrites = 0
    public var failedSyncs = 0
    /// `batch` background syncs that failed (retried; the appends had already completed).
    public var failedBackgroundSyncs = 0
    public var snapshots = 0
    public var snapshotFailures = 0
    /// Sessions held (including failed ones) and segment files open right now.
    public var sessions = 0
    public var openFiles = 0
    /// Segment descriptors opened again for an append or a snapshot after being closed as idle:
    /// a count that grows with every group means the budget is too small for the sessions in use.
    public var reopenedFiles = 0
    /// Bytes the writer keeps in sessions' group buffers between groups (only sessions holding a
    /// descriptor keep one, up to 8 KiB each).
    public var bufferedBytes = 0

    public init() {}
}
