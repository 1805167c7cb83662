extension SlotTrie {
    /// Builds a trie bottom-up from elements at strictly increasing indices: each leaf is filled
    /// once and each branch made once over the finished level below, where `set` would walk from
    /// the root for every element. The trie is the one the same `set`s give.
    ///
    ///     var b = SlotTrie<Int>.Builder()
    ///     _ = b.append(3, 30); _ = b.append(70, 700)
    ///     let t = b.build()   // t[70] == 700, t.rank(70) == 1
    @usableFromInline
    struct Builder {
        /// Finished nodes of the level being built, by their index at that level.
        @usableFromInline var nodes: [(index: Int, node: Node)] = []
        @usableFromInline var leaf = Leaf()
        @usableFromInline var leafIndex = -1
        @usableFromInline var last = -1

        @inlinable init() {}

        /// Adds `element` at `i`; false, and nothing added, when `i` is not above every index so far.
        @inlinable
        mutating func append(_ i: Int, _ element: Element) -> Bool {
            guard i > last else { return false }
            last = i
            let index = i &>> 5
            if index != leafIndex {
                if leafIndex >= 0 { nodes.append((leafIndex, leaf)) }
                leaf = Leaf()
                leafIndex = index
            }
            leaf.elements[i & 31] = element
            leaf.total &+= 1
            return true
        }

        /// Calls `body` with every element added so far, in index order.
        @inlinable
        func forEach(_ body: (Element) -> Void) {
            for (_, node) in nodes { SlotTrie.visit(node, height: 0, body) }
            if leafIndex >= 0 { SlotTrie.visit(leaf, height: 0, body) }
        }

        @inlinable
        consuming func build() -> SlotTrie {
            var trie = SlotTrie()
            guard leafIndex >= 0 else { return trie }
            nodes.append((leafIndex, leaf))
            // As `set` grows it: the least height whose capacity holds the last index.
            while last >= trie.capacity { trie.height += 1 }
            var level = nodes
            for _ in 0..<trie.height {
                var up: [(index: Int, node: Node)] = []
                up.reserveCapacity(level.count / 32 + 1)
                var branch = Branch(), branchIndex = level[0].index &>> 5
                for (index, node) in level {
                    if index &>> 5 != branchIndex {
                        up.append((branchIndex, branch))
                        branch = Branch()
                        branchIndex = index &>> 5
                    }
                    branch.children[index & 31] = node
                    branch.counts[index & 31] = node.total
                    branch.total &+= node.total
                }
                up.append((branchIndex, branch))
                level = up
            }
            trie.root = level[0].node
            return trie
        }
    }
}
