#if canImport(Glibc)
import Glibc
#endif

/// A session's lock: a glibc adaptive mutex (`PTHREAD_MUTEX_ADAPTIVE_NP`), which spins a little
/// before it sleeps. A session's critical sections last microseconds, so when two I/O loops
/// want the same session the second usually gets it while spinning, instead of paying a futex
/// sleep and wake-up as with `NSLock` (a plain pthread mutex). Same calls as `NSLock`.
final class SessionLock: @unchecked Sendable {  // safe: all state is the pthread mutex itself
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
