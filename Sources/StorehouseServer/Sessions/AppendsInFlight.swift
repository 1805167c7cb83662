/// A session's appends handed to the journal and not yet settled, oldest first, each with the
/// epoch the machine gave it. The journal answers one session's appends in the order they were
/// made, so its n-th answer is about the n-th oldest: the answer carries no append, and the
/// journal holds no closure per append. Touched under the session's lock; an append is moved in
/// and out, never copied.
///
///     var inFlight = AppendsInFlight()
///     inFlight.append(pending, epoch: 3)
///     var oldest: PendingAppend?
///     let epoch = inFlight.takeOldest(into: &oldest)   // 3, and `oldest` is `pending`
struct AppendsInFlight {
    private struct Entry {
        var pending: PendingAppend?
        let epoch: Int
    }

    private var entries: [Entry] = []
    /// `entries[..<start]` are taken (nil).
    private var start = 0

    var isEmpty: Bool { start == entries.count }

    mutating func append(_ pending: consuming PendingAppend, epoch: Int) {
        entries.append(Entry(pending: pending, epoch: epoch))
    }

    /// Moves the oldest append into `pending` (which must be nil) and returns its epoch; nil when
    /// none is in flight. Swapped out, not copied: an append holds a dozen references.
    mutating func takeOldest(into pending: inout PendingAppend?) -> Int? {
        guard start < entries.count else { return nil }
        swap(&pending, &entries[start].pending)
        let epoch = entries[start].epoch
        start += 1
        if start == entries.count {
            entries.removeAll(keepingCapacity: entries.capacity <= 1_024)
            start = 0
        } else if start >= 64, start * 2 >= entries.count {
            // Under load new appends arrive before the old ones are all settled: the taken ones
            // go in one move now and then, so the list stays about as long as what is in flight.
            entries.removeFirst(start)
            start = 0
        }
        return epoch
    }
}
