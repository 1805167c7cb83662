import HTTPEngine

/// The `Idempotency-Key`s a session has seen: the last `capacity` keys, each for at
/// most `lifetime` milliseconds (defaults: 1,000 keys, 24 hours).
struct IdempotencyCache {
    struct Entry {
        let bodyHash: [UInt8]
        let firstVersion: Int
        let lastVersion: Int
        let minimal: Bool
        let createdAt: Int64
        /// The first answer; nil after a restart, when it is rendered again from history.
        var response: HTTPResponse?
        var durable: Bool
        var waiters: [@Sendable (HTTPResponse) -> Void] = []
    }

    private(set) var entries: [String: Entry] = [:]
    private var order: [String] = []
    let capacity: Int
    let lifetime: Int64

    init(capacity: Int = 1_000, lifetime: Int64 = 24 * 3_600_000) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    func lookup(_ key: String, now: Int64) -> Entry? {
        guard let entry = entries[key], now - entry.createdAt < lifetime else { return nil }
        return entry
    }

    mutating func insert(_ key: String, _ entry: Entry) {
        // A key inserted again (after it expired) moves to the back of the eviction order.
        if entries.updateValue(entry, forKey: key) != nil { order.removeAll { $0 == key } }
        order.append(key)
        while order.count > capacity { entries[order.removeFirst()] = nil }
    }

    mutating func update(_ key: String, _ body: (inout Entry) -> Void) {
        guard var entry = entries[key] else { return }
        body(&entry)
        entries[key] = entry
    }

    /// Forgets keys whose actions were rolled back; returns the repeats that were waiting on them.
    mutating func drop(after version: Int) -> [@Sendable (HTTPResponse) -> Void] {
        var waiters: [@Sendable (HTTPResponse) -> Void] = []
        for (key, entry) in entries where entry.lastVersion > version {
            waiters += entry.waiters
            entries[key] = nil
        }
        order.removeAll { entries[$0] == nil }
        return waiters
    }
}
