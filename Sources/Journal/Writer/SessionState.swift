/// What the writer knows about one session's files. Owned by the writer thread alone.
final class SessionState {
    struct Segment {
        var seq: Int
        /// Highest record version in the segment; nil while it holds only the meta record.
        var maxVersion: Int?
    }

    let id: String
    let meta: [UInt8]
    /// Ascending; the last one is the segment appends go to.
    var segments: [Segment]
    /// Whether `<id>.snap` exists (a new snapshot then moves it to `<id>.snap.prev`).
    var hasSnapshot = false
    /// The version of the snapshot recovery would start from: `<id>.snap`'s, or `.prev`'s after a
    /// fallback. The next snapshot keeps every segment after it, so the snapshot it replaces stays
    /// a complete way back.
    var snapshotVersion: Int?
    /// Open descriptor of the current segment, or -1 (closed to stay under the descriptor budget).
    var fd: Int32 = -1
    /// The writer's group count when this session last opened its descriptor or was written:
    /// the descriptors closed as idle are those used longest ago.
    var lastUsedGroup = 0
    /// Bytes of the current segment that hold complete records.
    var size: Int
    /// Bytes of the current segment on disk: `size`, then zeros written ahead (see `preallocate`).
    var allocated = 0
    /// How far the next write ahead reaches past the records: it doubles with each one, up to
    /// `JournalWriter.preallocationChunk`.
    var preallocationStep = JournalWriter.firstPreallocationStep
    var lastVersion: Int?
    /// Bytes of the current segment known to be on disk (`batch`'s group-end frames record it).
    var syncedSize = 0
    /// `batch`: the writes since then, by group number and the size each left, oldest
    /// first; a sync that began after a group makes its size synced.
    var unsynced = UnsyncedWrites()
    /// A background sync failed after a write still unclaimed: claims stop there (see `advanceSynced`).
    var claimsFrozen = false
    /// The last write is claimed by a group-end frame after it (`seal` at close).
    var sealed = true
    /// Set when the files are unusable; appends are refused with this reason.
    var failure: String?
    var deleted = false

    // Scratch of the group being processed.
    var pending: [UInt8] = []
    var pendingLastVersion: Int?
    var groupError: JournalError?
    var inGroup = false
    var createdInGroup = false
    var sizeBeforeGroup = 0
    var lastVersionBeforeGroup: Int?
    var maxVersionBeforeGroup: Int?

    init(id: String, meta: [UInt8], segments: [Segment], size: Int, lastVersion: Int?) {
        self.id = id
        self.meta = meta
        self.segments = segments
        self.size = size
        self.lastVersion = lastVersion
    }

    /// The state of a session recovery read (`files`); `onDisk`: whether what it read is known
    /// to be on disk, so later group-end frames may claim it.
    convenience init(_ files: RecoveredFiles, onDisk: Bool) {
        self.init(id: files.id, meta: files.meta, segments: files.segments.map { .init(seq: $0.seq, maxVersion: $0.maxVersion) },
                  size: files.lastSegmentSize, lastVersion: files.lastVersion)
        allocated = max(files.lastSegmentSize, files.lastSegmentAllocated)
        hasSnapshot = files.hasSnapshot
        snapshotVersion = files.snapshotVersion
        failure = files.failure
        syncedSize = onDisk ? files.lastSegmentSize : 0
        claimsFrozen = !onDisk
    }

    var currentSegmentName: String { FileNames.segment(id, segments.last?.seq ?? 1) }
}
