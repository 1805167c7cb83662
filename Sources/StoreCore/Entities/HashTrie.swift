/// A persistent hash map from an entity's id to its row: a hash array mapped trie in the CHAMP
/// layout (32-way, rows inline in the node where their hash prefix is unique). `EntityRows`
/// keeps the ids without a small `denseIndex` (strings, negative or far-away numbers) here.
///
/// A copy is O(1) and shares every node; a write copies only the shared nodes on its path
/// (O(log n)), in place otherwise. Hashes come from `Hasher`, seeded per process: nothing
/// ordered or written depends on them.
@usableFromInline
struct HashTrie<E: Entity>: Sendable {
    @usableFromInline typealias Node = HashTrieNode<E>
    @usableFromInline typealias Row = EntityRows<E>.Row

    @usableFromInline var root = Node()
    @usableFromInline var count = 0

    @inlinable init() {}

    @inlinable var isEmpty: Bool { count == 0 }

    /// The last level that splits on hash bits: shifts 0, 5, ..., 60 cover 64 bits.
    @inlinable static var lastShift: Int { 60 }

    @inlinable static func hash(_ id: E.ID) -> UInt64 { UInt64(bitPattern: Int64(id.hashValue)) }

    @inlinable static func bit(_ hash: UInt64, _ shift: Int) -> UInt32 { 1 &<< UInt32(truncatingIfNeeded: (hash &>> UInt64(shift)) & 31) }

    /// The position of `bit`'s entry among those `map` has.
    @inlinable static func index(_ map: UInt32, _ bit: UInt32) -> Int { (map & (bit &- 1)).nonzeroBitCount }

    @inlinable
    subscript(id: E.ID) -> Row? {
        let hash = Self.hash(id)
        var node = root, shift = 0
        while shift <= Self.lastShift {
            let bit = Self.bit(hash, shift)
            if node.dataMap & bit != 0 {
                let row = node.rows[Self.index(node.dataMap, bit)]
                return row.entity.id == id ? row : nil
            }
            guard node.nodeMap & bit != 0 else { return nil }
            node = node.children[Self.index(node.nodeMap, bit)]
            shift += 5
        }
        return node.rows.first { $0.entity.id == id }
    }

    /// Adds a row whose id is known to be absent.
    @inlinable
    mutating func insertNew(_ row: Row) {
        if !isKnownUniquelyReferenced(&root) { root = root.copy() }
        Self.insert(row, Self.hash(row.entity.id), into: root, shift: 0)
        count += 1
    }

    @inlinable
    static func insert(_ row: Row, _ hash: UInt64, into node: Node, shift: Int) {
        if shift > lastShift {
            node.rows.append(row)
            return
        }
        let bit = Self.bit(hash, shift)
        if node.dataMap & bit != 0 {
            // Another row has this prefix: both move one level down.
            let other = node.rows.remove(at: index(node.dataMap, bit))
            node.dataMap ^= bit
            node.nodeMap |= bit
            node.children.insert(pair(other, Self.hash(other.entity.id), row, hash, shift: shift + 5), at: index(node.nodeMap, bit))
        } else if node.nodeMap & bit != 0 {
            let j = index(node.nodeMap, bit)
            if !isKnownUniquelyReferenced(&node.children[j]) { node.children[j] = node.children[j].copy() }
            insert(row, hash, into: node.children[j], shift: shift + 5)
        } else {
            node.dataMap |= bit
            node.rows.insert(row, at: index(node.dataMap, bit))
        }
    }

    /// The smallest subtree holding two rows whose hashes agree up to `shift`.
    @inlinable
    static func pair(_ a: Row, _ hashA: UInt64, _ b: Row, _ hashB: UInt64, shift: Int) -> Node {
        if shift > lastShift { return Node(rows: [a, b]) }
        let bitA = bit(hashA, shift), bitB = bit(hashB, shift)
        if bitA == bitB { return Node(nodeMap: bitA, children: [pair(a, hashA, b, hashB, shift: shift + 5)]) }
        return Node(dataMap: bitA | bitB, rows: bitA < bitB ? [a, b] : [b, a])
    }

    @inlinable @discardableResult
    mutating func remove(_ id: E.ID) -> Row? {
        // Looked up first, so a miss copies no shared node.
        guard self[id] != nil else { return nil }
        if !isKnownUniquelyReferenced(&root) { root = root.copy() }
        let removed = Self.remove(id, Self.hash(id), from: root, shift: 0)
        if removed != nil { count -= 1 }
        return removed
    }

    @inlinable
    static func remove(_ id: E.ID, _ hash: UInt64, from node: Node, shift: Int) -> Row? {
        if shift > lastShift {
            guard let i = node.rows.firstIndex(where: { $0.entity.id == id }) else { return nil }
            return node.rows.remove(at: i)
        }
        let bit = Self.bit(hash, shift)
        if node.dataMap & bit != 0 {
            let i = index(node.dataMap, bit)
            guard node.rows[i].entity.id == id else { return nil }
            node.dataMap ^= bit
            return node.rows.remove(at: i)
        }
        guard node.nodeMap & bit != 0 else { return nil }
        let j = index(node.nodeMap, bit)
        if !isKnownUniquelyReferenced(&node.children[j]) { node.children[j] = node.children[j].copy() }
        let child = node.children[j]
        let removed = remove(id, hash, from: child, shift: shift + 5)
        if removed != nil, child.nodeMap == 0, child.rows.count == 1 {
            // A lone row moves up, so every subnode keeps two rows or more beneath it.
            node.nodeMap ^= bit
            node.children.remove(at: j)
            node.dataMap |= bit
            node.rows.insert(child.rows[0], at: index(node.dataMap, bit))
        }
        return removed
    }

    /// Changes a row in place; nil when absent. `body` must not change the id.
    @inlinable
    mutating func modify<R>(_ id: E.ID, _ body: (inout Row) -> R) -> R? {
        guard count > 0 else { return nil }
        if !isKnownUniquelyReferenced(&root) { root = root.copy() }
        return Self.modify(id, Self.hash(id), in: root, shift: 0, body)
    }

    @inlinable
    static func modify<R>(_ id: E.ID, _ hash: UInt64, in node: Node, shift: Int, _ body: (inout Row) -> R) -> R? {
        if shift > lastShift {
            guard let i = node.rows.firstIndex(where: { $0.entity.id == id }) else { return nil }
            return body(&node.rows[i])
        }
        let bit = Self.bit(hash, shift)
        if node.dataMap & bit != 0 {
            let i = index(node.dataMap, bit)
            guard node.rows[i].entity.id == id else { return nil }
            return body(&node.rows[i])
        }
        guard node.nodeMap & bit != 0 else { return nil }
        let j = index(node.nodeMap, bit)
        if !isKnownUniquelyReferenced(&node.children[j]) { node.children[j] = node.children[j].copy() }
        return modify(id, hash, in: node.children[j], shift: shift + 5, body)
    }
}
