/// Reads of the head, and refusals decided on it, waiting for the version they show to be durable,
/// oldest first.
///
/// Each read shows the head as it was parked, and the head only moves forward between rollbacks,
/// so the queue is in version order: the reads a durable version releases are a prefix. A read
/// parked with a time expires after a deadline; one parked without (a refusal an
/// `Idempotency-Key` may keep) waits for its version or a rollback.
///
/// ```swift
/// var reads = ParkedReads<String>()
/// reads.park("GET state", version: 3, at: .now)
/// reads.takeDurable(through: 2)  // []
/// reads.takeDurable(through: 3)  // ["GET state"]
/// ```
public struct ParkedReads<Read> {
    private var parked: [(version: Int, parkedAt: MonotonicInstant?, read: Read)] = []

    public init() {}

    public var isEmpty: Bool { parked.isEmpty }
    public var count: Int { parked.count }

    /// Parks `read` until `version` is durable; `at` when it may expire (nil: it waits on).
    public mutating func park(_ read: Read, version: Int, at: MonotonicInstant?) {
        parked.append((version, at, read))
    }

    /// The reads whose versions are durable through `version`, oldest first.
    public mutating func takeDurable(through version: Int) -> [Read] {
        let ready = parked.prefix { $0.version <= version }
        guard !ready.isEmpty else { return [] }
        parked.removeFirst(ready.count)
        return ready.map(\.read)
    }

    /// Every parked read: after a rollback (their versions are gone) or a delete.
    public mutating func takeAll() -> [Read] {
        defer { parked = [] }
        return parked.map(\.read)
    }

    /// The reads parked with a time `deadline` or longer before `now`.
    public mutating func expire(now: MonotonicInstant, deadline: Duration) -> [Read] {
        var expired: [Read] = []
        parked.removeAll { entry in
            guard let at = entry.parkedAt, now - at >= deadline else { return false }
            expired.append(entry.read)
            return true
        }
        return expired
    }
}

extension ParkedReads: Sendable where Read: Sendable {}
