import StoreCore

/// The last `capacity` applied actions of a session with their patches: what the
/// action log, SSE resume and time travel read. A ring buffer, so appending is O(1)
/// and the oldest entry falls off once the window is full; `dropOldest` also ends the
/// window by bytes, for sessions whose actions are large.
struct ActionHistory {
    struct Entry {
        let version: Int
        let record: ActionRecord
        let patch: [UInt8]
        /// Roughly what the entry holds in memory: its action's JSON and its patch.
        let weight: Int

        init(version: Int, record: ActionRecord, patch: [UInt8]) {
            self.version = version
            self.record = record
            self.patch = patch
            weight = 64 + record.type.utf8.count + patch.count
                + (record.payload?.approximateBytes ?? 0) + (record.meta?.approximateBytes ?? 0)
        }
    }

    private var ring: [Entry?]
    private var start = 0
    private(set) var count = 0
    let capacity: Int
    /// The weight of the entries kept.
    private(set) var bytes = 0
    /// The weight of every entry that left the window from its old end (by count or by bytes),
    /// since the start: what a journal snapshot can compact away.
    private(set) var droppedBytes = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = []
    }

    /// Version of the oldest kept entry, or nil when empty.
    var firstVersion: Int? { count == 0 ? nil : ring[start]?.version }
    var lastVersion: Int? { count == 0 ? nil : ring[(start + count - 1) % capacity]?.version }

    mutating func append(_ entry: Entry) {
        bytes += entry.weight
        if count < capacity {
            // The next slot may already exist (after a truncation); only grow the array at its end.
            let slot = (start + count) % capacity
            if slot == ring.count { ring.append(entry) } else { ring[slot] = entry }
            count += 1
        } else {
            let dropped = ring[start]?.weight ?? 0
            bytes -= dropped
            droppedBytes += dropped
            ring[start] = entry
            start = (start + 1) % capacity
        }
    }

    /// The newest version that has to leave the window for the rest to fit in `budget` bytes;
    /// nil when it fits. O(entries that have to leave).
    func versionToDropThrough(toFit budget: Int) -> Int? {
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
    mutating func drop(through version: Int) {
        while let first = firstVersion, first <= version {
            let dropped = ring[start]?.weight ?? 0
            bytes -= dropped
            droppedBytes += dropped
            ring[start] = nil
            start = (start + 1) % capacity
            count -= 1
        }
    }

    /// The entry for `version`, if it is still kept.
    func entry(_ version: Int) -> Entry? {
        guard let first = firstVersion, version >= first, version < first + count else { return nil }
        return ring[(start + version - first) % capacity]
    }

    /// Entries with versions in `range` that are kept, in order.
    func entries(_ range: ClosedRange<Int>) -> [Entry] {
        guard let first = firstVersion, let last = lastVersion else { return [] }
        let low = max(range.lowerBound, first), high = min(range.upperBound, last)
        guard low <= high else { return [] }
        return (low...high).compactMap { entry($0) }
    }

    /// Forgets every entry after `version` (a rolled-back append).
    mutating func truncate(after version: Int) {
        while let last = lastVersion, last > version {
            let slot = (start + count - 1) % capacity
            bytes -= ring[slot]?.weight ?? 0
            ring[slot] = nil
            count -= 1
        }
    }
}

extension JSONValue {
    /// Roughly the bytes the value holds in memory (16 per value, plus the bytes of strings
    /// and keys): a weight for budgets, not a measurement.
    var approximateBytes: Int {
        switch self {
        case .null, .bool, .int, .double: 16
        case .string(let s): 16 + s.utf8.count
        case .array(let a): a.reduce(16) { $0 + $1.approximateBytes }
        case .object(let o): o.reduce(16) { $0 + 16 + $1.key.utf8.count + $1.value.approximateBytes }
        }
    }
}

/// Encoded states kept at some versions, the starting points for time travel
/// and for rebuilding after a refused journal append. Bounded in bytes.
struct KeptStates {
    private(set) var states: [(version: Int, bytes: [UInt8])] = []
    private var totalBytes = 0
    let byteBudget: Int

    init(byteBudget: Int) { self.byteBudget = byteBudget }

    /// Keeps `bytes` as the state at `version`; past the budget the oldest states go, but never
    /// the newest one (a state too big for the budget is still the only way back) nor the one a
    /// rollback to `durable` starts from.
    mutating func add(version: Int, bytes: [UInt8], keepingBaseOf durable: Int? = nil) {
        states.removeAll { $0.version >= version }
        states.append((version, bytes))
        totalBytes = states.reduce(0) { $0 + $1.bytes.count }
        let base = durable.flatMap { d in states.last { $0.version <= d }?.version }
        while totalBytes > byteBudget,
              let index = states.indices.dropLast().first(where: { states[$0].version != base }) {
            totalBytes -= states.remove(at: index).bytes.count
        }
    }

    /// Drops kept states no longer needed to reach `oldestVersion`: every state
    /// older than the newest one at or before it.
    mutating func trim(keeping oldestVersion: Int) {
        guard let index = states.lastIndex(where: { $0.version <= oldestVersion }), index > 0 else { return }
        for dropped in states[..<index] { totalBytes -= dropped.bytes.count }
        states.removeFirst(index)
    }

    mutating func drop(after version: Int) {
        states.removeAll { $0.version > version }
        totalBytes = states.reduce(0) { $0 + $1.bytes.count }
    }

    /// The newest kept state at or before `version`.
    func nearest(atOrBefore version: Int) -> (version: Int, bytes: [UInt8])? {
        states.last { $0.version <= version }
    }
}
