import Dispatch
import Foundation
import Glibc
import Synchronization
import SystemSupport

/// The `batch` policy's background sync: at most one `syncfs` per interval, on its own thread, so the
/// writer thread keeps writing (and completing appends) while the disk flushes.
final class BatchSyncer: Sendable {
    private struct State {
        var dirty = false
        var signaled = false
        var stopped = false
        var lastSyncNanos: UInt64 = 0
        var failures = 0
        var syncs = 0
        /// The newest group written, and the newest one a completed sync began after.
        var writtenGroup = 0
        var syncedGroup = 0
        /// The groups written between the last good sync and a sync that failed.
        var lostGroups = SyncFailures()
    }

    private let disk: Disk
    private let dirFD: Int32
    private let intervalNanos: UInt64
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(disk: Disk, dirFD: Int32, intervalNanos: UInt64) {
        self.disk = disk
        self.dirFD = dirFD
        self.intervalNanos = intervalNanos
    }

    func start() {
        NamedThread.start("journal-sync") { [self] in self.run() }
    }

    /// Group `group` was written: sync within one interval.
    func markDirty(group: Int) {
        let signal = state.withLock { s -> Bool in
            s.dirty = true
            s.writtenGroup = group
            if s.signaled { return false }
            s.signaled = true
            return true
        }
        if signal { wake.signal() }
    }

    /// Every group up to this one was written before a sync that has completed.
    var syncedGroup: Int { state.withLock { $0.syncedGroup } }
    var lostGroups: SyncFailures { state.withLock { $0.lostGroups } }

    /// Syncs and failures so far.
    var counts: (syncs: Int, failures: Int) { state.withLock { ($0.syncs, $0.failures) } }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        finished.wait()
    }

    private func run() {
        while true {
            wake.wait()
            let (stopped, last) = state.withLock { s -> (Bool, UInt64) in
                s.signaled = false
                return (s.stopped, s.lastSyncNanos)
            }
            if stopped { break }
            let due = last + intervalNanos
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { usleep(UInt32(min((due - now) / 1_000, 1_000_000))) }
            let (dirty, group) = state.withLock { s -> (Bool, Int) in
                let d = s.dirty
                s.dirty = false
                return (d, s.writtenGroup)
            }
            guard dirty else { continue }
            // A failed background sync cannot reach completions that already ran. The next sync
            // retries, but the kernel reports a lost writeback once: a later success proves nothing
            // for the groups this one covered, and no group-end frame claims them (`lostGroups`).
            let ok = (try? disk.syncFilesystem(dirFD)) != nil
            state.withLock { s in
                s.lastSyncNanos = DispatchTime.now().uptimeNanoseconds
                s.syncs += 1
                if ok {
                    s.syncedGroup = max(s.syncedGroup, group)
                } else {
                    s.failures += 1
                    s.lostGroups.add(after: s.syncedGroup, through: group)
                    s.dirty = true
                }
            }
        }
        finished.signal()
    }
}
