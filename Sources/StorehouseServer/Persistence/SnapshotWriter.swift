import Foundation
import Synchronization
import SystemSupport

/// Runs the server's journal snapshots one at a time on a thread of its own, at a lower
/// priority than the event loops (nice 10): encoding a million-entity state takes a core for a
/// second or more, and on a machine with few cores the requests go first. One thread for every
/// session, so two big sessions' snapshots never encode at once, and the buffers they leave go
/// back to one malloc arena (which `MemoryBudget.returnFreedMemory` then trims).
///
/// The thread starts with the first job and ends once the queue is empty.
///
///     let writer = SnapshotWriter()
///     writer.submit { log.snapshot(sessionID: id, version: v, bytes: state.encode()) }
///     writer.waitUntilIdle()   // tests, and shutdown before the journal closes
final class SnapshotWriter: Sendable {
    /// The nice value of the snapshot thread (Linux keeps one per thread).
    static let niceness: Int32 = 10
    /// A snapshot this large or larger gives malloc's free memory back to the kernel once written.
    static let trimAfterBytes = 1 << 20

    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var running = false
    }

    private let queue = Mutex(Queue())
    /// Signaled, under `idle`'s lock, whenever the thread ends (the queue ran dry).
    private let idle = NSCondition()

    /// Runs `job` after the jobs submitted before it, on the snapshot thread.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let start = queue.withLock { q -> Bool in
            q.jobs.append(job)
            defer { q.running = true }
            return !q.running
        }
        guard start else { return }
        NamedThread.start("snapshot-writer") { [self] in drain() }
    }

    /// Returns once every job submitted before this call has run.
    func waitUntilIdle() {
        idle.lock()
        while queue.withLock({ $0.running }) { idle.wait() }
        idle.unlock()
    }

    private func drain() {
        // `who` 0 is the calling thread: on Linux the nice value belongs to the thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        while let job = next() { job() }
    }

    /// The next job; nil, with the thread marked ended, once there is none.
    private func next() -> (@Sendable () -> Void)? {
        idle.lock()
        defer { idle.unlock() }
        let job = queue.withLock { q -> (@Sendable () -> Void)? in
            if q.jobs.isEmpty {
                q.running = false
                return nil
            }
            return q.jobs.removeFirst()
        }
        if job == nil { idle.broadcast() }
        return job
    }
}
