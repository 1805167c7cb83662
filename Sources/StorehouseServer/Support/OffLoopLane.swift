import Glibc
import Synchronization

/// One owner's queue of work on the ``OffLoopPool``: its jobs run one at a time, in the order
/// they were queued. Each session has one, so a request moved off the event loop keeps its
/// place among the session's requests (`Router.handleAdmitted`, `Session.submit`).
///
/// ```swift
/// let lane = OffLoopLane()
/// pool.run(in: lane) { print("first") }
/// pool.run(in: lane) { print("second, never before first") }
/// ```
final class OffLoopLane: Sendable {
    /// The jobs queued, the one running first: it leaves the list once it has run, so a lane
    /// with jobs is scheduled on the pool exactly once.
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    /// `jobs.count`, readable without the lock: the event loop's test of whether a request may
    /// run where it is (`isBusy`) costs one load.
    private let queued = Atomic<Int>(0)
    /// The thread running the lane's job, 0 when none: a job's own calls (a request's submit
    /// inside its lane) run in place instead of queueing behind themselves.
    private let runner = Atomic<UInt>(0)

    init() {}

    /// Whether jobs are queued or running: then the owner's next request goes behind them.
    var isBusy: Bool { queued.load(ordering: .acquiring) != 0 }

    /// The jobs queued or running.
    var count: Int { queued.load(ordering: .acquiring) }

    /// Whether the calling thread is running this lane's job.
    var runsHere: Bool { runner.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Whether a request on this thread must queue behind the lane's jobs to keep its place.
    var mustQueue: Bool { isBusy && !runsHere }

    /// Queues `job`; true when the lane had none, so the pool must schedule it.
    func push(_ job: @escaping @Sendable () -> Void) -> Bool {
        jobs.withLock { list in
            list.append(job)
            queued.store(list.count, ordering: .releasing)
            return list.count == 1
        }
    }

    /// Runs the first job; true when more are queued behind it.
    func runFirst() -> Bool {
        guard let job = jobs.withLock({ $0.first }) else { return false }
        runner.store(UInt(pthread_self()), ordering: .relaxed)
        job()
        runner.store(0, ordering: .relaxed)
        return jobs.withLock { list in
            list.removeFirst()
            queued.store(list.count, ordering: .releasing)
            return !list.isEmpty
        }
    }
}
