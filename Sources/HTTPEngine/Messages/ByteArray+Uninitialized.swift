extension Array where Element == UInt8 {
    /// Grows the array by `count` bytes that are not written (whoever asks writes them before they
    /// are read). With `reserveCapacity` first, allocating this way costs about half of
    /// `Array(unsafeUninitializedCapacity:)`, whose storage type is looked up at run time on every call.
    mutating func appendUninitialized(_ count: Int) {
        if capacity - self.count < count { reserveCapacity(Swift.max(self.count + count, capacity * 2)) }
        append(contentsOf: UninitializedBytes(count: count))
    }
}

/// `count` bytes left as they are: `append(contentsOf:)` hands its free capacity to
/// `_copyContents`, which claims them without a write. The bytes are trivial values, so
/// nothing is owned or released; they are only ever read after being written.
private struct UninitializedBytes: Sequence {
    let count: Int

    struct Iterator: IteratorProtocol {
        mutating func next() -> UInt8? { nil }
    }

    var underestimatedCount: Int { count }
    func makeIterator() -> Iterator { Iterator() }

    func _copyContents(initializing room: UnsafeMutableBufferPointer<UInt8>) -> (Iterator, Int) {
        precondition(room.count >= count)
        return (Iterator(), count)
    }
}
