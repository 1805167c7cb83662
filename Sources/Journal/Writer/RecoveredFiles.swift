/// A session found by recovery, handed to the writer thread.
struct RecoveredFiles: Sendable {
    var id: String
    var meta: [UInt8]
    var segments: [(seq: Int, maxVersion: Int?)]
    var hasSnapshot: Bool
    /// The version of the snapshot recovery started from (`.snap`, or `.prev` after a fallback).
    var snapshotVersion: Int?
    var lastSegmentSize: Int
    /// The newest segment's length on disk (records plus a preallocated zero tail).
    var lastSegmentAllocated: Int
    var lastVersion: Int?
    var failure: String?

    /// The note a caller keeps to read the session back without the writer opening it (nil when
    /// it failed or its segment numbers do not fit one).
    var parked: ParkedSession? {
        guard failure == nil, let first = segments.first?.seq, let last = segments.last?.seq,
              let firstSegment = UInt32(exactly: first), let lastSegment = UInt32(exactly: last) else { return nil }
        return ParkedSession(firstSegment: firstSegment, lastSegment: lastSegment)
    }
}
