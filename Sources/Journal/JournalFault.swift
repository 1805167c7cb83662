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
        /// `read` of a whole file by recovery (inject before `recover()`).
        case read
    }
    public var operation: Operation
    public var errno: Int32
    /// How many calls fail before the fault clears itself; nil = until `injectFault(nil)`.
    public var count: Int?
    /// Only calls on the file of this name (e.g. `"abc.snap"`) fail; nil = calls on any file.
    public var file: String?

    public init(operation: Operation, errno: Int32, count: Int? = nil, file: String? = nil) {
        self.operation = operation
        self.errno = errno
        self.count = count
        self.file = file
    }

    /// Writes fail with ENOSPC.
    public static func diskFull(count: Int? = nil) -> JournalFault { JournalFault(operation: .write, errno: ENOSPC, count: count) }
    /// Reads of `file` (of any file when nil) fail with EIO, as on a bad sector.
    public static func readFails(file: String? = nil, count: Int? = nil) -> JournalFault {
        JournalFault(operation: .read, errno: EIO, count: count, file: file)
    }
    /// Syncs fail with EIO.
    public static func syncFails(count: Int? = nil) -> JournalFault { JournalFault(operation: .sync, errno: EIO, count: count) }
}
