/// Where a parked session's files are, kept by the caller in place of the writer's own state
/// (``Journal/park(sessions:)``): eight bytes instead of the writer's per-session object, for a
/// server that keeps a million sessions on disk and few in memory.
///
/// ```swift
/// let parked = journal.park(sessions: ["abc"])[0]        // nil: not parked, still open
/// let session = journal.readSession(id: "abc", parked: parked!)   // open again
/// ```
public struct ParkedSession: Sendable, Equatable {
    /// The lowest and highest segment numbers the session had; the segments between them that a
    /// compaction removed are skipped when it is read back.
    public let firstSegment: UInt32
    public let lastSegment: UInt32

    public init(firstSegment: UInt32, lastSegment: UInt32) {
        self.firstSegment = firstSegment
        self.lastSegment = lastSegment
    }
}
