import Synchronization

/// Live counts read by `/metrics`, kept as atomics so opening a stream takes no shared lock.
final class Gauges: Sendable {
    private let subscribers = Atomic<Int>(0)

    func subscriberOpened() { subscribers.add(1, ordering: .relaxed) }
    func subscriberClosed() { subscribers.subtract(1, ordering: .relaxed) }
    var subscriberCount: Int { subscribers.load(ordering: .relaxed) }
}
