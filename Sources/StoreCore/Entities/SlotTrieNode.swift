/// A node of a `SlotTrie`: a `SlotTrieLeaf` of 32 elements or a `SlotTrieBranch` of 32 children.
/// The trie knows from the level which one it holds.
///
/// A node is written only while uniquely referenced: the trie checks `isKnownUniquelyReferenced`
/// before every write and copies the node otherwise, so a node that another trie value shares
/// (a kept state, a snapshot being encoded on another thread) is never written. Hence
/// `@unchecked Sendable`, as for Array's own copy-on-write buffer.
@usableFromInline
class SlotTrieNode<Element: Sendable>: @unchecked Sendable {
    /// The number of elements under this node.
    @usableFromInline var total: Int

    @inlinable init(total: Int) { self.total = total }
}

/// 32 elements in the node itself (no separate buffer): a lookup touches one object.
/// `@unchecked Sendable` as its base: written only while uniquely referenced.
@usableFromInline
final class SlotTrieLeaf<Element: Sendable>: SlotTrieNode<Element>, @unchecked Sendable {
    @usableFromInline var elements: InlineArray<32, Element?>

    @inlinable
    init(elements: InlineArray<32, Element?> = InlineArray(repeating: nil), total: Int = 0) {
        self.elements = elements
        super.init(total: total)
    }

    @inlinable func copy() -> SlotTrieLeaf { SlotTrieLeaf(elements: elements, total: total) }
}

/// 32 children and how many elements each holds, in the node itself.
/// `@unchecked Sendable` as its base: written only while uniquely referenced.
@usableFromInline
final class SlotTrieBranch<Element: Sendable>: SlotTrieNode<Element>, @unchecked Sendable {
    /// By digit; nil where no index under it holds an element yet.
    @usableFromInline var children: InlineArray<32, SlotTrieNode<Element>?>
    /// `counts[d]` is the number of elements under `children[d]`.
    @usableFromInline var counts: InlineArray<32, Int>

    @inlinable
    init(children: InlineArray<32, SlotTrieNode<Element>?> = InlineArray(repeating: nil),
         counts: InlineArray<32, Int> = InlineArray(repeating: 0), total: Int = 0) {
        self.children = children
        self.counts = counts
        super.init(total: total)
    }

    @inlinable func copy() -> SlotTrieBranch { SlotTrieBranch(children: children, counts: counts, total: total) }
}
