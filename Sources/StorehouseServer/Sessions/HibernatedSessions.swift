import Journal
import StoreCore

/// The registry's hibernated sessions (docs/API.md "Lifecycle"), each as one fixed-size record
/// keyed by its packed id: no object, string or array of its own, so a million idle sessions
/// cost the table's buckets and nothing else (`scripts/bench-hibernation.py` measures it).
/// A `SessionSummary` is made from a record only when one session is asked for.
///
/// ```swift
/// var table = HibernatedSessions()
/// table.insert(summary, parked: parked)   // false for an id that cannot be packed
/// table.summary(of: summary.id)?.version  // the summary again
/// ```
struct HibernatedSessions {
    /// What a hibernated session is, in 80 bytes.
    struct Record {
        var tokenHash: (UInt64, UInt64, UInt64, UInt64)
        var version: Int64
        var createdAt: Int64
        var updatedAt: Int64
        /// The expiry clock's last tick (`SessionLifetime`).
        var lastActivity: Int64
        var ttlSeconds: Int32
        /// Into `kinds`.
        var kind: UInt16
        var forked: Bool
        /// Whether `parked` holds the journal's note of its files (else the journal keeps it open).
        var isParked: Bool
        var parked: ParkedSession

        func expired(at now: Int64) -> Bool { ttlSeconds > 0 && now >= lastActivity + Int64(ttlSeconds) * 1_000 }
    }

    private var records: [PackedSessionID: Record] = [:]
    /// The kinds the records name, each once (a handful).
    private var kinds: [any StoreKind] = []
    /// The origins of forked sessions, which are few.
    private var forks: [PackedSessionID: ForkOrigin] = [:]
    /// Records with a `ttlSeconds`: the once-a-second expiry looks at none while there are none.
    private var withTTL = 0

    var count: Int { records.count }
    var isEmpty: Bool { records.isEmpty }

    /// Asked of every session request (`Router.handle`): with none hibernated, the id is not parsed.
    func contains(_ id: String) -> Bool { !records.isEmpty && (PackedSessionID(id).map { records[$0] != nil } ?? false) }

    func contains(_ key: PackedSessionID) -> Bool { !records.isEmpty && records[key] != nil }

    /// Adds (or replaces) `summary`; false, and nothing added, when its id or token hash does not
    /// fit a record (the session then stays resident).
    @discardableResult
    mutating func insert(_ summary: SessionSummary, parked: ParkedSession?) -> Bool {
        guard let id = PackedSessionID(summary.id), let hash = Self.pack(summary.tokenHash),
              let ttl = Int32(exactly: summary.lifetime.ttlSeconds), let version = Int64(exactly: summary.version) else { return false }
        let kind: Int
        if let known = kinds.firstIndex(where: { $0.name == summary.kind.name }) {
            kind = known
        } else {
            kind = kinds.count
            kinds.append(summary.kind)
        }
        let old = records[id]
        if old?.ttlSeconds ?? 0 > 0 { withTTL -= 1 }
        if ttl > 0 { withTTL += 1 }
        if old?.forked == true { forks[id] = nil }
        records[id] = Record(tokenHash: hash, version: version, createdAt: summary.createdAt, updatedAt: summary.updatedAt,
                             lastActivity: summary.lifetime.lastActivityMillis, ttlSeconds: ttl, kind: UInt16(kind),
                             forked: summary.forkedFrom != nil, isParked: parked != nil,
                             parked: parked ?? ParkedSession(firstSegment: 0, lastSegment: 0))
        if let origin = summary.forkedFrom { forks[id] = origin }
        return true
    }

    func summary(of id: String) -> SessionSummary? {
        guard let packed = PackedSessionID(id), let record = records[packed] else { return nil }
        return summary(id, record, packed)
    }

    /// The journal's note of the session's files; nil when it is not parked (or not here).
    func parked(_ id: String) -> ParkedSession? {
        guard let packed = PackedSessionID(id), let record = records[packed], record.isParked else { return nil }
        return record.parked
    }

    /// Notes where the journal left a session's files (`Journal.park`).
    mutating func setParked(_ id: String, _ parked: ParkedSession) {
        guard let packed = PackedSessionID(id) else { return }
        records[packed]?.parked = parked
        records[packed]?.isParked = true
    }

    @discardableResult
    mutating func remove(_ id: String) -> Bool {
        guard let packed = PackedSessionID(id), let record = records.removeValue(forKey: packed) else { return false }
        if record.forked { forks[packed] = nil }
        if record.ttlSeconds > 0 { withTTL -= 1 }
        return true
    }

    /// The ids of the sessions expired at `now`, with the journal's note of their files; looks
    /// at the records only when one has a `ttlSeconds`.
    func expired(at now: Int64) -> [(id: String, parked: ParkedSession?)] {
        guard withTTL > 0 else { return [] }
        return records.compactMap { id, record in record.expired(at: now) ? (id.string, record.isParked ? record.parked : nil) : nil }
    }

    /// The expiry clock of each session with a `ttlSeconds` (`ExpiryClocks` rewrites its file from them).
    func clocks() -> [(id: String, millis: Int64)] {
        guard withTTL > 0 else { return [] }
        return records.compactMap { id, record in record.ttlSeconds > 0 ? (id.string, record.lastActivity) : nil }
    }

    /// A listed session, from its record: its metadata without a `SessionSummary`.
    func listed(_ id: PackedSessionID) -> Listed? {
        records[id].map { Listed(id: id, record: $0, kind: kinds[Int($0.kind)].name, forkedFrom: $0.forked ? forks[id] : nil) }
    }

    func kindName(_ id: PackedSessionID) -> String? { records[id].map { kinds[Int($0.kind)].name } }

    /// A hibernated session in a listing page.
    struct Listed {
        let id: PackedSessionID
        let record: Record
        let kind: String
        let forkedFrom: ForkOrigin?

        func appendMetadataJSON(to out: inout [UInt8]) {
            out.append(contentsOf: #"{"id":""#.utf8)
            id.append(to: &out)
            SessionSummary.appendMembersAfterID(
                kind: kind, version: Int(record.version), createdAt: record.createdAt, updatedAt: record.updatedAt,
                expiresAt: record.ttlSeconds > 0 ? record.lastActivity + Int64(record.ttlSeconds) * 1_000 : nil, subscribers: 0,
                resident: false, forkedFrom: forkedFrom, to: &out)
        }
    }

    private func summary(_ id: String, _ record: Record, _ packed: PackedSessionID) -> SessionSummary {
        let lifetime = SessionLifetime(ttlSeconds: Int(record.ttlSeconds), lastActivity: record.lastActivity)
        let h = record.tokenHash
        return SessionSummary(id: id, kind: kinds[Int(record.kind)], tokenHash: Self.unpack(h), version: Int(record.version),
                              createdAt: record.createdAt, updatedAt: record.updatedAt, lifetime: lifetime,
                              forkedFrom: record.forked ? forks[packed] : nil)
    }

    private static func pack(_ hash: [UInt8]) -> (UInt64, UInt64, UInt64, UInt64)? {
        guard hash.count == 32 else { return nil }
        func word(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 << 8 | UInt64(hash[at + $1]) } }
        return (word(0), word(8), word(16), word(24))
    }

    private static func unpack(_ words: (UInt64, UInt64, UInt64, UInt64)) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return out
    }
}
