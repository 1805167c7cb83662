extension EntityRows {
    /// Rows built bottom-up (`SlotTrie.Builder`) from entities in slot order (slot = position)
    /// whose ids have strictly increasing `denseIndex`es, as a table reads them from its JSON.
    /// Each row lands where `insertNew` would have put it, inserted in this order; each entity is
    /// moved into its row once, not held in a list beside the trie.
    @usableFromInline
    struct Builder {
        @usableFromInline var dense = SlotTrie<Row>.Builder()
        /// Rows whose ids `insertNew` would keep in the hash trie (far beyond the count).
        @usableFromInline var sparse: [Row] = []
        /// The dense trie's capacity so far, which `insertNew`'s rule reads.
        @usableFromInline var capacity = SlotTrie<Row>().capacity
        @usableFromInline var count = 0
        @usableFromInline var previous = -1

        @inlinable init() {}

        /// Adds `entity` at the next slot; false, and nothing added, when its id has no dense
        /// index above the previous one's.
        @inlinable
        mutating func append(_ entity: E) -> Bool {
            guard let d = entity.id.denseIndex, d > previous else { return false }
            previous = d
            count += 1
            // `insertNew`'s rule, with the count after this row.
            if d < Swift.max(capacity, 1024, 2 * count) {
                _ = dense.append(d, Row(entity: entity, slot: count - 1))
                while d >= capacity { capacity &<<= 5 }
            } else {
                sparse.append(Row(entity: entity, slot: count - 1))
            }
            return true
        }

        @inlinable
        consuming func build() -> EntityRows {
            var rows = EntityRows()
            rows.dense = dense.build()
            for row in sparse { rows.sparse.insertNew(row) }
            rows.count = count
            return rows
        }

        /// The entities added, in slot order: for a reader that finds it cannot build bottom-up.
        @inlinable
        func entities() -> [E] {
            var rows = sparse
            rows.reserveCapacity(count)
            dense.forEach { rows.append($0) }
            rows.sort { $0.slot < $1.slot }
            return rows.map(\.entity)
        }
    }
}
