import Dispatch
import Synchronization

/// Live counts read by `/metrics`, kept as atomics so opening a stream takes no shared lock.
final class Gauges: Sendable {
    private let subscribers = Atomic<Int>(0)
    /// Effects running or feeding back; shutdown waits on it (bounded) before closing the journal.
    let effects = DispatchGroup()

    func subscriberOpened() { subscribers.add(1, ordering: .relaxed) }
    func subscriberClosed() { subscribers.subtract(1, ordering: .relaxed) }
    var subscriberCount: Int { subscribers.load(ordering: .relaxed) }
}
