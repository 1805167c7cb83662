/// A persistent array with holes over non-negative indices: a radix trie of 32-way nodes that
/// also counts its elements, so an index's rank among them and the k-th of them cost O(log n).
///
/// A copy is O(1) and shares every node; a write copies only the nodes on its path that another
/// copy still shares (O(log n) memory), and writes in place otherwise. `EntityTable` keeps its
/// rows by dense id in one and its `allIds` order (slot → id, nil for a removed id) in another.
///
///     var t = SlotTrie<Int>()
///     t.set(3, 30); t.set(70, 700)
///     t.rank(70)    // 1: one element before index 70
///     t.select(1)   // (index: 70, element: 700)
@usableFromInline
struct SlotTrie<Element: Sendable>: Sendable {
    @usableFromInline typealias Node = SlotTrieNode<Element>
    @usableFromInline typealias Leaf = SlotTrieLeaf<Element>
    @usableFromInline typealias Branch = SlotTrieBranch<Element>

    @usableFromInline var root: Node?
    /// Branch levels above the leaves: the trie holds indices below 32^(height + 1).
    @usableFromInline var height = 0

    @inlinable init() {}

    /// The number of elements.
    @inlinable var count: Int { root?.total ?? 0 }

    /// Indices below this fit without growing the trie.
    @inlinable var capacity: Int { 1 &<< (5 &* (height &+ 1)) }

    @inlinable
    subscript(i: Int) -> Element? {
        guard i >= 0, i < capacity, var node = root else { return nil }
        var shift = 5 &* height
        while shift > 0 {
            guard let child = unsafeDowncast(node, to: Branch.self).children[(i &>> shift) & 31] else { return nil }
            node = child
            shift &-= 5
        }
        return unsafeDowncast(node, to: Leaf.self).elements[i & 31]
    }

    /// Puts `value` (nil: nothing) at `i` and returns what was there. `i` stays below 2^60 (the
    /// tables' indices are slots and dense ids, bounded by the number of rows).
    @inlinable @discardableResult
    mutating func set(_ i: Int, _ value: Element?) -> Element? {
        if value == nil, self[i] == nil { return nil }
        while i >= capacity {
            if let r = root {
                var children = InlineArray<32, Node?>(repeating: nil)
                var counts = InlineArray<32, Int>(repeating: 0)
                children[0] = r
                counts[0] = r.total
                root = Branch(children: children, counts: counts, total: r.total)
            }
            height += 1
        }
        return Self.set(&root, shift: 5 &* height, i, value)
    }

    @inlinable
    static func set(_ slot: inout Node?, shift: Int, _ i: Int, _ value: Element?) -> Element? {
        let d = (i &>> shift) & 31
        let delta: Int, old: Element?
        if shift == 0 {
            if slot == nil {
                slot = Leaf()
            } else if !isKnownUniquelyReferenced(&slot), let shared = slot {
                slot = unsafeDowncast(shared, to: Leaf.self).copy()
            }
            guard let node = slot else { return nil }
            let leaf = unsafeDowncast(node, to: Leaf.self)
            old = leaf.elements[d]
            leaf.elements[d] = value
            delta = (value == nil ? 0 : 1) - (old == nil ? 0 : 1)
            leaf.total += delta
            return old
        }
        if slot == nil {
            slot = Branch()
        } else if !isKnownUniquelyReferenced(&slot), let shared = slot {
            slot = unsafeDowncast(shared, to: Branch.self).copy()
        }
        guard let node = slot else { return nil }
        let branch = unsafeDowncast(node, to: Branch.self)
        old = set(&branch.children[d], shift: shift &- 5, i, value)
        delta = (value == nil ? 0 : 1) - (old == nil ? 0 : 1)
        branch.counts[d] += delta
        branch.total += delta
        return old
    }

    /// Changes the element at `i` in place (copying only the shared nodes on its path); nil, and
    /// no change, when there is none.
    @inlinable
    mutating func modify<R>(_ i: Int, _ body: (inout Element) -> R) -> R? {
        guard i >= 0, i < capacity else { return nil }
        return Self.modify(&root, shift: 5 &* height, i, body)
    }

    @inlinable
    static func modify<R>(_ slot: inout Node?, shift: Int, _ i: Int, _ body: (inout Element) -> R) -> R? {
        if shift == 0 {
            if !isKnownUniquelyReferenced(&slot), let shared = slot {
                slot = unsafeDowncast(shared, to: Leaf.self).copy()
            }
            guard let node = slot else { return nil }
            return unsafeDowncast(node, to: Leaf.self).elements[i & 31].modifyIfPresent(body)
        }
        if !isKnownUniquelyReferenced(&slot), let shared = slot {
            slot = unsafeDowncast(shared, to: Branch.self).copy()
        }
        guard let node = slot else { return nil }
        return modify(&unsafeDowncast(node, to: Branch.self).children[(i &>> shift) & 31], shift: shift &- 5, i, body)
    }

    /// The number of elements at indices below `i`.
    @inlinable
    func rank(_ i: Int) -> Int {
        guard var node = root, i > 0 else { return 0 }
        if i >= capacity { return count }
        var shift = 5 &* height, r = 0
        while shift > 0 {
            let d = (i &>> shift) & 31
            let branch = unsafeDowncast(node, to: Branch.self)
            for j in 0..<d { r &+= branch.counts[j] }
            guard let child = branch.children[d] else { return r }
            node = child
            shift &-= 5
        }
        let leaf = unsafeDowncast(node, to: Leaf.self)
        for j in 0..<(i & 31) where leaf.elements[j] != nil { r &+= 1 }
        return r
    }

    /// The `k`-th element (from 0) in index order, and its index.
    @inlinable
    func select(_ k: Int) -> (index: Int, element: Element)? {
        guard k >= 0, k < count, var node = root else { return nil }
        var k = k, index = 0, shift = 5 &* height
        while shift > 0 {
            let branch = unsafeDowncast(node, to: Branch.self)
            var d = 0
            while d < 31, k >= branch.counts[d] { k -= branch.counts[d]; d += 1 }
            guard let child = branch.children[d] else { return nil }
            index &+= d &<< shift
            node = child
            shift &-= 5
        }
        let leaf = unsafeDowncast(node, to: Leaf.self)
        for d in 0..<32 {
            guard let element = leaf.elements[d] else { continue }
            if k == 0 { return (index &+ d, element) }
            k -= 1
        }
        return nil
    }

    /// Calls `body` with every element in index order.
    @inlinable
    func forEach(_ body: (Element) -> Void) {
        guard let root else { return }
        Self.visit(root, height: height, body)
    }

    @inlinable
    static func visit(_ node: Node, height: Int, _ body: (Element) -> Void) {
        if height == 0 {
            let leaf = unsafeDowncast(node, to: Leaf.self)
            for d in 0..<32 { if let element = leaf.elements[d] { body(element) } }
            return
        }
        let branch = unsafeDowncast(node, to: Branch.self)
        for d in 0..<32 { if let child = branch.children[d] { visit(child, height: height - 1, body) } }
    }

    /// True when both are the same trie (not only equal): O(1), for copies that share everything.
    @inlinable
    func isIdentical(to other: SlotTrie) -> Bool { root === other.root && height == other.height }
}

extension Optional {
    /// Runs `body` on the wrapped value in place; nil when there is none.
    @inlinable
    mutating func modifyIfPresent<R>(_ body: (inout Wrapped) -> R) -> R? {
        guard self != nil else { return nil }
        return body(&self!)
    }
}
