#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// The server's memory budget (`--max-memory`): what every session holds, counted in one atomic,
/// and the process's resident memory, sampled.
///
/// Sessions charge what they hold (history, kept states, idempotency answers, subscriber buffers,
/// their head) through `settle`, under their own lock; the budget itself takes no lock. Past
/// `shrinkFraction` of the limit, sessions let go of idempotency answers and shorten their history
/// to a share of the limit (`historyShare`); past the limit, writes are refused with 503
/// `memory-budget` (`refusal`) while reads go on.
///
/// ```swift
/// let budget = MemoryBudget(limit: 512 << 20)
/// var charged = 0
/// budget.settle(&charged, holding: 40 << 20)   // a session now holds 40 MiB
/// budget.admitsWrites                          // true until the total passes 512 MiB
/// ```
final class MemoryBudget: Sendable {
    /// Bytes the server may hold.
    let limit: Int
    /// Whether the process's resident memory counts besides what sessions charge (the server's
    /// choice; tests that run many servers in one process count only their own charges).
    let countsResident: Bool
    private let charged = Atomic<Int>(0)
    /// Bytes reserved by writes being parsed and applied (`reserve`), which no session holds yet.
    private let reserved = Atomic<Int>(0)
    /// The process's resident bytes as the sampler (`sampler`) last read them.
    private let residentSample = Atomic<Int>(0)
    /// Reads the resident size every `sampleInterval` on a queue of its own, so a request's
    /// checks load one atomic and no request pays for a read of /proc, however slowly it runs.
    private let sampler = LockedBox<DispatchSourceTimer?>(nil)
    /// Sessions sharing the budget, counted by the registry as they come and go.
    let sessions = Atomic<Int>(0)

    /// From this share of the limit on, windows shrink before anything is refused.
    static let shrinkFraction = 0.8
    /// What a session is counted for besides its windows: its store, maps and buffers.
    static let sessionOverhead = 4 << 10
    /// The memory-budget refusal: a client can retry once windows have shrunk or sessions left.
    static let refusal = Problem(503, "memory-budget", "the server holds as much as its memory budget (--max-memory) allows; reads still work, retry writes later",
                                 headers: [("Retry-After", "1")])
    /// How often the sampler reads the resident size: a write the charges underestimate reaches
    /// the kernel's count within this, and an idle server wakes ten times a second for it.
    static let sampleInterval = DispatchTimeInterval.milliseconds(100)

    init(limit: Int, countsResident: Bool = true) {
        self.limit = max(1, limit)
        self.countsResident = countsResident
        shrinkThreshold = Int((Double(self.limit) * Self.shrinkFraction).rounded(.up))
        guard countsResident else { return }
        residentSample.store(Self.readResident() ?? 0, ordering: .relaxed)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "storehouse.memory-sampler", qos: .utility))
        timer.schedule(deadline: .now() + Self.sampleInterval, repeating: Self.sampleInterval, leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in
            guard let self, let value = Self.readResident() else { return }
            residentSample.store(value, ordering: .relaxed)
        }
        timer.resume()
        sampler.value = timer
    }

    deinit {
        sampler.value?.cancel()
    }

    /// Bytes charged by sessions now.
    var accounted: Int { charged.load(ordering: .relaxed) }

    /// What the budget compares with its limit: the charges, or the resident memory when that
    /// is larger (the charges are estimates; the kernel's count is not), plus what writes in
    /// flight reserved.
    var used: Int { (countsResident ? max(accounted, resident()) : accounted) + reserved.load(ordering: .relaxed) }

    /// What a body of `bytes` may hold once parsed: a JSON array of small numbers is 16 bytes per
    /// value, about 8 per byte of text.
    static func parsedSize(ofBody bytes: Int) -> Int { bytes * 8 }

    /// Admits a write that will hold about `bytes` while it is parsed and applied, or refuses it
    /// (false) when that would pass the limit. Concurrent writes see each other's reservations, so
    /// sixteen large bodies arriving at once cannot all pass a check made before any was parsed.
    /// A true answer is paired with `release(bytes)`.
    func reserve(_ bytes: Int) -> Bool {
        reserved.add(bytes, ordering: .relaxed)
        if used < limit { return true }
        reserved.subtract(bytes, ordering: .relaxed)
        return false
    }

    func release(_ bytes: Int) { reserved.subtract(bytes, ordering: .relaxed) }

    var admitsWrites: Bool { used < limit }

    /// Every write asks (its history window, its settlement): an integer comparison with the
    /// threshold worked out once.
    var shouldShrink: Bool { used >= shrinkThreshold }

    /// The least whole number of bytes at or past `shrinkFraction` of the limit.
    private let shrinkThreshold: Int

    /// The history bytes one session keeps while the budget shrinks windows: an equal part of
    /// half the limit, at least 64 KiB.
    var historyShare: Int {
        max(64 << 10, limit / 2 / max(1, sessions.load(ordering: .relaxed)))
    }

    /// Charges the difference between what a session holds now and what it was charged for
    /// (`charged`, kept by the session under its lock).
    func settle(_ chargedBySession: inout Int, holding bytes: Int) {
        let delta = bytes - chargedBySession
        guard delta != 0 else { return }
        charged.add(delta, ordering: .relaxed)
        chargedBySession = bytes
    }

    /// Resident bytes of the process as last sampled (at most `sampleInterval` old).
    func resident() -> Int { residentSample.load(ordering: .relaxed) }

    /// Gives freed memory back to the kernel, so the resident size follows what was let go.
    func returnFreedMemory() {
        _ = Self.mallocTrim?(0)
    }

    /// glibc's `malloc_trim`, which the Glibc module does not import (it is in malloc.h).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// Resident bytes of the process now, from `/proc/self/statm` (its second field counts
    /// pages), read into a buffer on the stack: no file handle or string is made for it.
    static func readResident() -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer -> Int? in
            let count = read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return nil }
            var field = 0, pages = 0, digits = 0
            for byte in buffer[..<count] {
                if byte == UInt8(ascii: " ") {
                    field += 1
                    if field > 1 { break }
                } else if field == 1 {
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                    pages = pages * 10 + Int(byte - UInt8(ascii: "0"))
                    digits += 1
                }
            }
            return digits > 0 ? pages * pageSize : nil
        }
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Half of the memory this process may use: the cgroup v2 limit when one is set, else the
    /// machine's physical memory.
    static func defaultLimit(cgroupFile: String = "/sys/fs/cgroup/memory.max") -> Int {
        let physical = Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
        var available = physical > 0 ? physical : 1 << 30
        if let text = try? String(contentsOfFile: cgroupFile, encoding: .utf8),
           let cgroup = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), cgroup > 0 {
            available = min(available, cgroup)   // "max" means no limit and parses as nil
        }
        return available / 2
    }
}
