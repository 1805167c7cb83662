/// The id → (entity, slot) map behind `EntityTable`, persistent: a copy is O(1) and shares every
/// row; a change copies only the nodes on its path that a copy still shares.
///
/// Ids with a small `denseIndex` (non-negative integers not far beyond the row count, the
/// usual `nextId` counter) live in a `SlotTrie` indexed by that number: a few array indexes per
/// lookup and no hashing, with neighbouring ids in one leaf, so encoding in id order walks
/// memory in order. Other ids (strings, sparse numbers) live in a `HashTrie`.
@usableFromInline
struct EntityRows<E: Entity>: Sendable {
    @usableFromInline struct Row: Sendable {
        @usableFromInline var entity: E
        @usableFromInline var slot: Int
        @inlinable init(entity: E, slot: Int) { self.entity = entity; self.slot = slot }
    }

    @usableFromInline var dense = SlotTrie<Row>()
    @usableFromInline var sparse = HashTrie<E>()
    @usableFromInline var count = 0

    @inlinable init() {}

    @inlinable subscript(id: E.ID) -> Row? {
        if let d = id.denseIndex, let row = dense[d] { return row }
        return sparse.isEmpty ? nil : sparse[id]
    }

    /// Adds a row for an id known to be absent.
    @inlinable mutating func insertNew(_ id: E.ID, _ row: Row) {
        count += 1
        // The dense trie grows only while it stays proportional to the row count, so its
        // height (the steps of every lookup) follows the table's size, not its largest id.
        if let d = id.denseIndex, d < Swift.max(dense.capacity, 1024, 2 * count) {
            dense.set(d, row)
        } else {
            sparse.insertNew(row)
        }
    }

    @inlinable @discardableResult
    mutating func remove(_ id: E.ID) -> Row? {
        if let d = id.denseIndex, dense[d] != nil {
            count -= 1
            return dense.set(d, nil)
        }
        guard !sparse.isEmpty, let row = sparse.remove(id) else { return nil }
        count -= 1
        return row
    }

    /// Changes a row in place (no copy of the entity unless a copy of the table shares it); nil
    /// when absent.
    @inlinable mutating func modify<R>(_ id: E.ID, _ body: (inout Row) -> R) -> R? {
        if let d = id.denseIndex, let result = dense.modify(d, body) { return result }
        return sparse.isEmpty ? nil : sparse.modify(id, body)
    }

    /// True when both share all their nodes (a copy not written since): O(1).
    @inlinable func isIdentical(to other: EntityRows) -> Bool {
        dense.isIdentical(to: other.dense) && sparse.root === other.sparse.root
    }
}
