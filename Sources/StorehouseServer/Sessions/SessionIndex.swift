/// Every session id the server has, in order, for the admin's paged listing (`GET /sessions`).
///
/// Ids arrive in random order, so a sorted array would move half of itself per creation. The
/// index keeps a sorted `base` and two small sets of changes since it was built, and merges the
/// changes in once they pass a share of the base: an insertion or removal costs a set operation,
/// and a page costs a binary search plus the page, with the pending additions sorted once.
/// It holds ids only, packed (`PackedSessionID`: no allocation each), not sessions, so it can
/// hold those that are not in memory. The pending additions are sorted once per change, not per
/// page, so paging through a listing costs a binary search and the page.
///
/// ```swift
/// var index = SessionIndex()
/// ["c", "a", "b"].forEach { index.insert($0) }
/// index.page(after: "a", limit: 1) { _ in true }   // ([b], more: true), packed
/// ```
struct SessionIndex {
    /// Sorted; may still hold ids in `removed`.
    private var base: [PackedSessionID] = []
    /// Ids not in `base`.
    private var added: Set<PackedSessionID> = []
    /// `added`, sorted; nil once it changed.
    private var addedSorted: [PackedSessionID]? = []
    /// Ids in `base` that are gone.
    private var removed: Set<PackedSessionID> = []

    var count: Int { base.count - removed.count + added.count }

    mutating func insert(_ id: String) {
        guard let id = PackedSessionID(id) else { return }
        if removed.remove(id) == nil, added.insert(id).inserted { addedSorted = nil }
    }

    mutating func remove(_ id: String) {
        guard let id = PackedSessionID(id) else { return }
        if added.remove(id) == nil { removed.insert(id) } else { addedSorted = nil }
    }

    /// Up to `limit` ids greater than `cursor` (all when nil), ascending, for which `include`
    /// holds, and whether another such id follows them.
    mutating func page(after cursor: String?, limit: Int, include: (PackedSessionID) -> Bool) -> (ids: [PackedSessionID], more: Bool) {
        if added.count + removed.count > max(4_096, base.count / 64) { compact() }
        let extra = addedSorted ?? added.sorted()
        addedSorted = extra
        let after = cursor.flatMap(PackedSessionID.init)
        var i = after.map { Self.firstIndex(after: $0, in: base) } ?? 0
        var j = after.map { Self.firstIndex(after: $0, in: extra) } ?? 0
        var ids: [PackedSessionID] = []
        ids.reserveCapacity(min(limit, count))
        while true {
            let next: PackedSessionID
            if i < base.count && (j == extra.count || base[i] < extra[j]) {
                next = base[i]
                i += 1
                if removed.contains(next) { continue }
            } else if j < extra.count {
                next = extra[j]
                j += 1
            } else {
                return (ids, false)
            }
            guard include(next) else { continue }
            if ids.count == limit { return (ids, true) }
            ids.append(next)
        }
    }

    /// Folds the pending changes into `base`: one merge, O(count).
    private mutating func compact() {
        let extra = addedSorted ?? added.sorted()
        var merged: [PackedSessionID] = []
        merged.reserveCapacity(count)
        var j = 0
        for id in base where !removed.contains(id) {
            while j < extra.count && extra[j] < id { merged.append(extra[j]); j += 1 }
            merged.append(id)
        }
        merged.append(contentsOf: extra[j...])
        base = merged
        added = []
        addedSorted = []
        removed = []
    }

    /// The index of the first element of `sorted` greater than `key`.
    private static func firstIndex(after key: PackedSessionID, in sorted: [PackedSessionID]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] <= key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
