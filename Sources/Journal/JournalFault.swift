import Glibc

/// A failure the journal pretends the disk returned, so tests (the server's too) can force the
/// refusal path, e.g. a 503 `journal-unavailable`:
///
///     journal.injectFault(.diskFull())          // every write now fails with ENOSPC
///     journal.injectFault(nil)                  // the disk "recovers"
public struct JournalFault: Sendable, Equatable {
    public enum Operation: Sendable, Equatable {
        /// `pwrite` of records, meta or snapshot bytes.
        case write
        /// `fdatasync`/`fsync`/`syncfs` of files and the directory.
        case sync
    }
    public var operation: Operation
    public var errno: Int32
    /// How many calls fail before the fault clears itself; nil = until `injectFault(nil)`.
    public var count: Int?

    public init(operation: Operation, errno: Int32, count: Int? = nil) {
        self.operation = operation
        self.errno = errno
        self.count = count
    }

    /// Writes fail with ENOSPC.
    public static func diskFull(count: Int? = nil) -> JournalFault { JournalFault(operation: .write, errno: ENOSPC, count: count) }
    /// Syncs fail with EIO.
    public static func syncFails(count: Int? = nil) -> JournalFault { JournalFault(operation: .sync, errno: EIO, count: count) }
}
