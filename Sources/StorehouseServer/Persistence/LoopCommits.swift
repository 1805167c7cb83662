/// Which event loops appended in their current iteration and owe the journal a commit.
///
/// One flag per loop, each on its own cache line: loop `N` alone reads and writes flag `N`
/// (`Committer.eventLoop(N)` is only given on loop `N`'s thread), so no lock or atomic is needed,
/// and the loops do not take a shared line from each other's cores on every request.
final class LoopCommits: @unchecked Sendable {  // safe: flag N is touched only on event loop N's thread
    private static let stride = 64
    let count: Int
    private let flags: UnsafeMutableRawPointer

    init(loops: Int) {
        count = max(0, loops)
        flags = .allocate(byteCount: max(1, count) * Self.stride, alignment: Self.stride)
        flags.initializeMemory(as: UInt8.self, repeating: 0, count: max(1, count) * Self.stride)
    }

    deinit { flags.deallocate() }

    /// Notes that loop `loop` appended; false for a loop this table does not know (the caller
    /// then has the writer woken instead).
    func markPending(_ loop: Int) -> Bool {
        guard loop >= 0 && loop < count else { return false }
        flags.storeBytes(of: 1, toByteOffset: loop * Self.stride, as: UInt8.self)
        return true
    }

    /// Whether loop `loop` appended since it last asked, and clears that.
    func takePending(_ loop: Int) -> Bool {
        guard loop >= 0 && loop < count else { return false }
        let offset = loop * Self.stride
        guard flags.load(fromByteOffset: offset, as: UInt8.self) != 0 else { return false }
        flags.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
        return true
    }
}
