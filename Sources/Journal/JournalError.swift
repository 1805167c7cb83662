import Glibc

/// Why the journal refused an operation.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `[A-Za-z0-9_-]{1,64}`: nothing is touched on disk.
    case invalidSessionID(String)
    /// `createSession` for an id that already has files.
    case sessionExists(String)
    /// Append, snapshot or delete for an id the journal does not hold (never created, deleted, or `recover()` not run).
    case unknownSession(String)
    /// The session's journal is unusable (corrupt at recovery, or a failed write could not be undone); its files are kept for inspection.
    case sessionFailed(String, reason: String)
    /// An append whose first version is not the one after the last durable record (a gap, or a retry after a refused append that skipped one).
    case versionOutOfOrder(session: String, expected: Int, got: Int)
    /// A system call failed: `ENOSPC` (disk full), `EIO`, ... The append did not happen; later appends may succeed.
    case io(operation: String, path: String, errno: Int32)
    /// Another process holds the directory's lock file.
    case directoryLocked(String)
    /// `close()` already ran.
    case closed
    /// A synchronous call (`createSession`) made from inside a completion, which runs on the writer thread.
    case calledFromCompletion

    public var description: String {
        switch self {
        case .invalidSessionID(let id): return "invalid session id \(String(reflecting: id)) (must match [A-Za-z0-9_-]{1,64})"
        case .sessionExists(let id): return "session \(id) already exists"
        case .unknownSession(let id): return "unknown session \(id)"
        case .sessionFailed(let id, let reason): return "session \(id) is unavailable: \(reason)"
        case .versionOutOfOrder(let id, let expected, let got): return "session \(id): append version \(got), expected \(expected)"
        case .io(let op, let path, let code): return "\(op) \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .directoryLocked(let dir): return "journal directory \(dir) is locked by another process"
        case .closed: return "journal is closed"
        case .calledFromCompletion: return "createSession cannot be called from a journal completion"
        }
    }
}
