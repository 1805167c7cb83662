/// A session's writes since the last sync known to cover them (`batch`, `never`), oldest first,
/// by group number and the segment size each left; at most `limit`.
///
/// Dropping the oldest is a step of an index, not a shift of the whole list: a session written in
/// every group drops one each group once it holds `limit` (under `never` nothing but a flush
/// covers them), and the array moves once per `limit` drops.
///
///     var writes = UnsyncedWrites()
///     writes.append(group: 7, size: 4_096)
///     for write in writes where write.group <= syncedGroup { /* covered */ }
struct UnsyncedWrites: Sequence {
    typealias Write = (group: Int, size: Int)
    /// Past this, the oldest write is dropped: a later group-end frame then claims less, never more.
    static let limit = 64

    private var entries: [Write] = []
    /// `entries[..<start]` are dropped.
    private var start = 0

    var isEmpty: Bool { start == entries.count }
    var count: Int { entries.count - start }

    mutating func append(group: Int, size: Int) {
        if count >= Self.limit { start += 1 }
        if start >= Self.limit {
            entries.removeFirst(start)
            start = 0
        }
        entries.append((group, size))
    }

    /// Drops the `k` oldest (`k <= count`).
    mutating func removeFirst(_ k: Int) {
        start += k
        if start == entries.count { removeAll() }
    }

    mutating func removeAll() {
        entries.removeAll()
        start = 0
    }

    mutating func removeAll(where shouldBeRemoved: (Write) -> Bool) {
        entries.removeFirst(start)
        start = 0
        entries.removeAll(where: shouldBeRemoved)
    }

    func makeIterator() -> ArraySlice<Write>.Iterator { entries[start...].makeIterator() }
}
