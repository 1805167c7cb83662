/// One session as the journal found it at start: replay = decode `snapshot` (or start from the kind's
/// initial state when nil), then apply `records` in order.
public struct RecoveredSession: Sendable {
    public let id: String
    /// The opaque bytes given to `createSession`.
    public let meta: [UInt8]
    /// The newest valid snapshot; every record below has a higher version.
    public let snapshot: (version: Int, bytes: [UInt8])?
    /// Records after the snapshot, consecutive versions, oldest first.
    public let records: [(version: Int, bytes: [UInt8])]
}
