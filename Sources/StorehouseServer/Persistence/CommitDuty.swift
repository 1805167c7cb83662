import Glibc

/// Per-thread bookkeeping for appends an event loop commits itself at the end of its iteration.
///
/// A thread becomes a committer the first time it calls `commitIfPending` (an I/O thread does,
/// before its first wait). Appends made on a committer are queued without waking the journal's
/// writer thread and marked pending; any other thread (an effect on the cooperative pool) wakes
/// the writer as before. The flags live in one pthread-specific word, so reading them costs no
/// allocation and no lock.
enum CommitDuty {
    private static let committer: UInt = 1
    private static let pending: UInt = 2
    private static let appending: UInt = 4

    /// One key for the process; created once, on first use (Swift globals are initialized once).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var flags: UInt {
        get { UInt(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// Whether this thread promised to commit; if so, its append is now pending.
    static func deferAppend() -> Bool {
        let current = flags
        guard current & committer != 0 else { return false }
        flags = current | pending
        return true
    }

    /// Runs `body` marked as inside an append, so a completion run synchronously by it can tell.
    static func appending<T>(_ body: () -> T) -> T {
        let current = flags
        flags = current | appending
        defer { flags = flags & ~appending }
        return body()
    }

    /// True while this thread is inside `appending`.
    static var isAppending: Bool { flags & appending != 0 }

    /// Makes this thread a committer and runs `commit` when it left appends pending.
    /// A completion run by `commit` may append again; that goes in another group before the wait.
    static func commitIfPending(_ commit: () -> Void) {
        flags = flags | committer
        while flags & pending != 0 {
            flags = flags & ~pending
            commit()
        }
    }
}
