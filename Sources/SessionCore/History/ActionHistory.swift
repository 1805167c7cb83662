import StoreCore

/// The last `capacity` applied actions of a session with their patches: what the
/// action log, SSE resume and time travel read. A ring buffer, so appending is O(1)
/// and the oldest entry falls off once the window is full; `drop(through:)` also ends the
/// window by bytes, for sessions whose actions are large.
///
/// `capacity` counts the entries at or before an append's `keepingAfter` version (the published
/// one); those after it (not sent to subscribers yet, most not durable) stay besides, so a change
/// never leaves before every subscriber could have it, and actions in flight do not shorten
/// the window clients read.
///
/// ```swift
/// var history = ActionHistory(capacity: 2)
/// for v in 1...3 { history.append(.init(version: v, record: ActionRecord(type: "counter/incrTapped", at: 0, source: .client), patch: [])) }
/// history.firstVersion  // 2
/// ```
public struct ActionHistory: Sendable {
    public struct Entry: Sendable {
        public let version: Int
        public let record: ActionRecord
        public let patch: [UInt8]
        /// Roughly what the entry holds in memory: its action's JSON and its patch.
        public let weight: Int

        public init(version: Int, record: ActionRecord, patch: [UInt8]) {
            self.version = version
            self.record = record
            self.patch = patch
            weight = 64 + record.type.utf8.count + patch.count
                + (record.payload?.approximateBytes ?? 0) + (record.meta?.approximateBytes ?? 0)
        }
    }

    /// The slots, `count` of them in use from `start` on (wrapping); past `capacity` only while
    /// entries after a floor need them.
    private var ring: [Entry?] = []
    private var start = 0
    /// The oldest kept entry's version when `count > 0`: versions are consecutive, so the window's
    /// ends are arithmetic on it, and an append reads no entry (reading one out of the ring copies
    /// its strings and arrays: a retain and a release each).
    private var base = 0
    public private(set) var count = 0
    public let capacity: Int
    /// The weight of the entries kept.
    public private(set) var bytes = 0
    /// The weight of every entry that left the window from its old end (by count or by bytes),
    /// since the start: what a journal snapshot can compact away.
    public private(set) var droppedBytes = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    private func slot(_ offset: Int) -> Int { (start + offset) % ring.count }

    /// The slots allocated (for the tests: a burst's are given back).
    public var slotCount: Int { ring.capacity }

    /// Version of the oldest kept entry, or nil when empty.
    public var firstVersion: Int? { count == 0 ? nil : base }
    public var lastVersion: Int? { count == 0 ? nil : base + count - 1 }

    /// Adds the newest entry. The window holds `capacity` entries at or before `floor` (what
    /// clients can be shown), and every entry after it besides: only the former leave, oldest first.
    /// `entry.version` follows the newest kept entry's (any version when the window is empty).
    /// Consuming: the entry moves into its slot, not copied.
    public mutating func append(_ entry: consuming Entry, keepingAfter floor: Int = .max) {
        let adding = entry.version <= floor ? 1 : 0
        while count > 0, base <= floor, min(floor, base + count - 1) - base + 1 + adding > capacity {
            dropOldest()
        }
        if count == ring.count {
            // Doubling up to `capacity`; past it by an eighth (the actions in flight are few).
            let size = count < capacity ? min(capacity, max(16, 2 * ring.count)) : ring.count + max(16, ring.count / 8)
            if start == 0 {
                // Laid out from 0 and full (no entry has left yet, as while a new session's window
                // fills): the entry goes at the end, into storage grown on the same schedule. No
                // slot is filled with nil ahead of its entry: filling a slot through
                // `append(contentsOf:)` costs more than the append it makes room for.
                if ring.capacity == ring.count { ring.reserveCapacity(size) }
                if count == 0 { base = entry.version }
                bytes += entry.weight
                ring.append(consume entry)
                count += 1
                return
            }
            relayout(size)
        } else if ring.count > capacity, count < ring.count / 2 {
            // A burst grew the slots past `capacity`; give them back once it has passed, down to
            // one growth step above what is kept.
            relayout(max(capacity, count + count / 8 + 16))
        }
        if count == 0 { base = entry.version }
        bytes += entry.weight
        ring[slot(count)] = consume entry
        count += 1
    }

    /// Moves the entries into `size` slots, laid out from 0 again. Laid out from 0 already (no
    /// entry has left yet, as while a new session's window fills), the slots grow in place: the
    /// array moves its entries bitwise, where copying them one by one retained and released each
    /// entry's strings and arrays (a few hundred instructions an entry, at every doubling).
    private mutating func relayout(_ size: Int) {
        if start == 0, size >= ring.count {
            ring.append(contentsOf: repeatElement(nil, count: size - ring.count))
            return
        }
        var slots = [Entry?](repeating: nil, count: size)
        for offset in 0..<count {
            let from = slot(offset)
            swap(&slots[offset], &ring[from])
        }
        ring = slots
        start = 0
    }

    private mutating func dropOldest() {
        // Taken out, not read then cleared: the entry leaves without a copy.
        let dropped = ring[start].take()?.weight ?? 0
        bytes -= dropped
        droppedBytes += dropped
        start = (start + 1) % ring.count
        base += 1
        count -= 1
    }

    /// The newest version that has to leave the window for the rest to fit in `budget` bytes;
    /// nil when it fits. O(entries that have to leave).
    public func versionToDropThrough(toFit budget: Int) -> Int? {
        guard bytes > budget, var version = firstVersion else { return nil }
        var remaining = bytes
        while let entry = entry(version) {
            remaining -= entry.weight
            if remaining <= budget { return version }
            version += 1
        }
        return lastVersion
    }

    /// Drops the entries up to and including `version` from the old end.
    public mutating func drop(through version: Int) {
        while let first = firstVersion, first <= version { dropOldest() }
    }

    /// The entry for `version`, if it is still kept.
    public func entry(_ version: Int) -> Entry? {
        guard count > 0, version >= base, version < base + count else { return nil }
        return ring[slot(version - base)]
    }

    /// Entries with versions in `range` that are kept, in order.
    public func entries(_ range: ClosedRange<Int>) -> [Entry] {
        guard let first = firstVersion, let last = lastVersion else { return [] }
        let low = max(range.lowerBound, first), high = min(range.upperBound, last)
        guard low <= high else { return [] }
        return (low...high).compactMap { entry($0) }
    }

    /// Forgets every entry after `version` (a rolled-back append).
    public mutating func truncate(after version: Int) {
        while count > 0, base + count - 1 > version {
            bytes -= ring[slot(count - 1)].take()?.weight ?? 0
            count -= 1
        }
    }
}

extension JSONValue {
    /// Roughly the bytes the value holds in memory (16 per value, plus the bytes of strings
    /// and keys): a weight for budgets, not a measurement.
    fileprivate var approximateBytes: Int {
        switch self {
        case .null, .bool, .int, .double: 16
        case .string(let s): 16 + s.utf8.count
        case .array(let a): a.reduce(16) { $0 + $1.approximateBytes }
        case .object(let o): o.reduce(16) { $0 + 16 + $1.key.utf8.count + $1.value.approximateBytes }
        }
    }
}
