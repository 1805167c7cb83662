extension EntityRows {
    /// Rows for entities in slot order (slot = position) whose ids have strictly increasing
    /// `denseIndex`es, built bottom-up (`SlotTrie.Builder`); nil when the ids are not such. Each
    /// row lands where `insertNew` would have put it, inserted in this order.
    @inlinable
    static func build(_ entities: [E]) -> EntityRows? {
        var previous = -1
        for e in entities {
            guard let d = e.id.denseIndex, d > previous else { return nil }
            previous = d
        }
        var rows = EntityRows()
        var dense = SlotTrie<Row>.Builder()
        var capacity = SlotTrie<Row>().capacity
        for (slot, e) in entities.enumerated() {
            let d = e.id.denseIndex ?? previous
            // `insertNew`'s rule, with the count after this row.
            if d < Swift.max(capacity, 1024, 2 * (slot + 1)) {
                _ = dense.append(d, Row(entity: e, slot: slot))
                while d >= capacity { capacity &<<= 5 }
            } else {
                rows.sparse.insertNew(Row(entity: e, slot: slot))
            }
        }
        rows.dense = dense.build()
        rows.count = entities.count
        return rows
    }
}
