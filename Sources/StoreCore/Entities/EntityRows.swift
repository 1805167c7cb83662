/// The id → (entity, slot) map behind `EntityTable`.
///
/// Ids with a small `denseIndex` (non-negative integers not far beyond the row count, the
/// usual `nextId` counter) live in an array indexed by that number: one memory access per
/// lookup instead of a hash table's bitmap, key and value arrays, which matters once a table
/// no longer fits in cache. Other ids (strings, sparse numbers) live in a dictionary.
@usableFromInline
struct EntityRows<E: Entity>: Sendable {
    @usableFromInline struct Row: Sendable {
        @usableFromInline var entity: E
        @usableFromInline var slot: Int
        @inlinable init(entity: E, slot: Int) { self.entity = entity; self.slot = slot }
    }

    @usableFromInline var dense: [Row?] = []
    @usableFromInline var sparse: [E.ID: Row] = [:]
    @usableFromInline var count = 0

    @inlinable init() {}

    @inlinable func denseSlot(_ id: E.ID) -> Int? {
        guard let d = id.denseIndex, d < dense.count, dense[d] != nil else { return nil }
        return d
    }

    @inlinable subscript(id: E.ID) -> Row? {
        if let d = id.denseIndex, d < dense.count, let row = dense[d] { return row }
        return sparse.isEmpty ? nil : sparse[id]
    }

    /// Adds a row for an id known to be absent.
    @inlinable mutating func insertNew(_ id: E.ID, _ row: Row) {
        count += 1
        if let d = id.denseIndex {
            if d < dense.count { dense[d] = row; return }
            // Grow the array only while it stays proportional to the row count.
            let limit = Swift.max(1024, 2 * count)
            if d < limit {
                let target = Swift.min(limit, Swift.max(d + 1, dense.count * 2))
                dense.reserveCapacity(target)
                dense.append(contentsOf: repeatElement(nil, count: target - dense.count))
                dense[d] = row
                return
            }
        }
        sparse[id] = row
    }

    @inlinable @discardableResult
    mutating func remove(_ id: E.ID) -> Row? {
        if let d = denseSlot(id) {
            let row = dense[d]
            dense[d] = nil
            count -= 1
            return row
        }
        guard let row = sparse.removeValue(forKey: id) else { return nil }
        count -= 1
        return row
    }

    /// Changes a row in place (no copy of the entity); nil when absent.
    @inlinable mutating func modify<R>(_ id: E.ID, _ body: (inout Row) -> R) -> R? {
        if let d = denseSlot(id) {
            return dense[d]?.modifyRow(body)
        }
        return sparse[id]?.modifyRow(body)
    }
}

extension EntityRows.Row {
    @inlinable mutating func modifyRow<R>(_ body: (inout Self) -> R) -> R { body(&self) }
}
