/// A Fenwick (binary indexed) tree of 0/1 counts: prefix sums and point updates in O(log n),
/// append and pop in O(log n)/O(1). `EntityTable` uses it to turn a slot into its position
/// among the live ids without scanning.
@usableFromInline struct Fenwick: Sendable {
    /// tree[i - 1] holds the sum of slots (i - lowbit(i), i] (1-based i).
    @usableFromInline var tree: [Int] = []

    @inlinable var count: Int { tree.count }

    @inlinable init() {}

    /// Builds from per-slot values in O(n).
    @usableFromInline init(_ values: [Int]) {
        tree = values
        for i in 1...max(1, values.count) where i <= values.count {
            let parent = i + (i & -i)
            if parent <= tree.count { tree[parent - 1] += tree[i - 1] }
        }
    }

    /// Sum of the first `n` slots.
    @inlinable func prefix(_ n: Int) -> Int {
        var i = n, sum = 0
        while i > 0 { sum += tree[i - 1]; i -= i & -i }
        return sum
    }

    @inlinable mutating func add(_ delta: Int, at slot: Int) {
        var i = slot + 1
        while i <= tree.count { tree[i - 1] += delta; i += i & -i }
    }

    /// Appends a slot holding `value`; its node covers (n - lowbit(n), n].
    @inlinable mutating func append(_ value: Int) {
        let n = tree.count + 1
        tree.append(value + prefix(n - 1) - prefix(n - (n & -n)))
    }

    /// Drops the last slot; no other node covers it, so nothing else changes.
    @inlinable mutating func removeLast() { tree.removeLast() }
}
