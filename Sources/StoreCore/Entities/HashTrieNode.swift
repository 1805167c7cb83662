/// One node of a `HashTrie` (CHAMP layout): rows stored here and subnodes, each found by a
/// bitmap over the 32 values of this level's five hash bits. Below the last level (64 bits
/// used) a node lists the rows whose hashes are equal, in any order.
///
/// Written only while uniquely referenced (the trie copies a shared node before writing), so a
/// node another trie value shares is never written: hence `@unchecked Sendable`.
@usableFromInline
final class HashTrieNode<E: Entity>: @unchecked Sendable {
    @usableFromInline typealias Row = EntityRows<E>.Row

    /// Which of this level's 32 hash values hold a row in `rows`.
    @usableFromInline var dataMap: UInt32
    /// Which hold a subnode in `children`.
    @usableFromInline var nodeMap: UInt32
    /// In hash-value order (by `dataMap`'s bits).
    @usableFromInline var rows: [Row]
    @usableFromInline var children: [HashTrieNode]

    @inlinable
    init(dataMap: UInt32 = 0, nodeMap: UInt32 = 0, rows: [Row] = [], children: [HashTrieNode] = []) {
        self.dataMap = dataMap
        self.nodeMap = nodeMap
        self.rows = rows
        self.children = children
    }

    @inlinable
    func copy() -> HashTrieNode { HashTrieNode(dataMap: dataMap, nodeMap: nodeMap, rows: rows, children: children) }
}
