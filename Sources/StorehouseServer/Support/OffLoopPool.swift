import Dispatch
import Foundation
import Synchronization

/// Work whose cost is large next to an answer (a big batch, encoding a big state, a replay
/// of an old version, a journal snapshot, loading a hibernated session) runs here rather than on
/// an event loop, whose other connections would wait for it. At most `width` jobs run at once,
/// on Dispatch's threads; each ``OffLoopLane`` runs its jobs one at a time, in order, and the
/// lanes with work take turns a job each, so one busy session does not starve the others.
///
/// ```swift
/// let pool = OffLoopPool(width: 2)
/// pool.run(in: session.lane) { session.submit(submission, replyTo: .client(exchange)) }
/// pool.run { encodeSnapshot() }  // no order to keep
/// ```
final class OffLoopPool: Sendable {
    let width: Int
    private let queue = DispatchQueue(label: "storehouse.off-loop", qos: .userInitiated, attributes: .concurrent)
    /// Lanes waiting for a worker, oldest first, and how many workers run.
    private let state = Mutex<(ready: [OffLoopLane], running: Int)>(([], 0))

    /// `width`: the jobs that may run at once; by default one per core, and at least two so a
    /// long job (a snapshot) leaves room for the next request.
    init(width: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)) {
        self.width = max(1, width)
    }

    /// Runs `job` once the jobs queued in `lane` before it have run.
    func run(in lane: OffLoopLane, _ job: @escaping @Sendable () -> Void) {
        guard lane.push(job) else { return }
        let start = state.withLock { state -> Bool in
            guard state.running < width else {
                state.ready.append(lane)
                return false
            }
            state.running += 1
            return true
        }
        if start { queue.async { self.work(from: lane) } }
    }

    /// Lanes with work waiting for a worker (every worker busy).
    var waiting: Int { state.withLock { $0.ready.count } }

    /// Runs `job` with no order to keep.
    func run(_ job: @escaping @Sendable () -> Void) {
        run(in: OffLoopLane(), job)
    }

    /// A worker: a job of `lane`, then of the lane waiting longest, until none waits.
    private func work(from lane: OffLoopLane) {
        var lane = lane
        while true {
            let more = lane.runFirst()
            let next = state.withLock { state -> OffLoopLane? in
                if more { state.ready.append(lane) }
                guard !state.ready.isEmpty else {
                    state.running -= 1
                    return nil
                }
                return state.ready.removeFirst()
            }
            guard let next else { return }
            lane = next
        }
    }
}
