/// An event stream as the session machine knows it: an id the host maps to the stream itself.
public typealias SubscriberID = UInt64

/// The session's event-stream subscribers as bookkeeping: what each was sent, when, and whether
/// it waits for a snapshot. The streams, their bytes and their bounds stay with the host.
///
/// Kept in order of arrival (a removal moves the newest into the gap), so the commands a
/// publication emits come in an order a test can state.
///
/// ```swift
/// var subscribers = Subscribers()
/// subscribers.add(.init(id: 7, lastVersion: 3, lastWrite: 0))
/// subscribers[7]?.lastVersion = 4
/// subscribers.remove(7)  // true
/// ```
public struct Subscribers: Sendable, Equatable {
    public struct Subscriber: Sendable, Equatable {
        public let id: SubscriberID
        /// The newest version this subscriber has been sent (by change or snapshot).
        public var lastVersion: Int
        /// When bytes last went out (milliseconds), for the keep-alive comment.
        public var lastWrite: Int64
        /// Reset by the slow-subscriber rule: changes skip it until its stream drains and it is
        /// sent a snapshot of the head as it is then.
        public var awaitingSnapshot = false
        /// The version of a snapshot taken of a head not durable yet: it goes out with the
        /// publication that makes that version durable, and changes are held back until then.
        public var heldSnapshot: Int?

        public init(id: SubscriberID, lastVersion: Int, lastWrite: Int64, awaitingSnapshot: Bool = false, heldSnapshot: Int? = nil) {
            self.id = id
            self.lastVersion = lastVersion
            self.lastWrite = lastWrite
            self.awaitingSnapshot = awaitingSnapshot
            self.heldSnapshot = heldSnapshot
        }
    }

    public private(set) var all: [Subscriber] = []
    private var index: [SubscriberID: Int] = [:]
    /// Streams a shutdown asked to end while actions were still on their way to the journal: they
    /// end once those settle, after the changes.
    public internal(set) var endingWhenSettled: [SubscriberID] = []

    public init() {}

    public var isEmpty: Bool { all.isEmpty }
    public var count: Int { all.count }

    public mutating func add(_ subscriber: Subscriber) {
        index[subscriber.id] = all.count
        all.append(subscriber)
    }

    /// Forgets a subscriber; false when it was not there.
    @discardableResult
    public mutating func remove(_ id: SubscriberID) -> Bool {
        guard let position = index.removeValue(forKey: id) else { return false }
        let last = all.removeLast()
        if position < all.count {
            all[position] = last
            index[last.id] = position
        }
        endingWhenSettled.removeAll { $0 == id }
        return true
    }

    /// Forgets every subscriber; returns their ids, in order.
    public mutating func removeAll() -> [SubscriberID] {
        defer {
            all = []
            index = [:]
            endingWhenSettled = []
        }
        return all.map(\.id)
    }

    public subscript(id: SubscriberID) -> Subscriber? {
        get { index[id].map { all[$0] } }
        set {
            guard let position = index[id] else { return }
            if let newValue { all[position] = newValue } else { remove(id) }
        }
    }

    /// Where the subscriber `id` is in `all`.
    func position(of id: SubscriberID) -> Int? { index[id] }

    /// The subscriber at `position` in `all`, to change in place.
    subscript(at position: Int) -> Subscriber {
        get { all[position] }
        _modify { yield &all[position] }
    }
}
