#if canImport(Glibc)
import Glibc
#endif
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
    private let residentSample = Atomic<Int>(0)
    private let sampledAtMillis = Atomic<Int64>(0)
    /// Sessions sharing the budget, counted by the registry as they come and go.
    let sessions = Atomic<Int>(0)

    /// From this share of the limit on, windows shrink before anything is refused.
    static let shrinkFraction = 0.8
    /// What a session is counted for besides its windows: its store, maps and buffers.
    static let sessionOverhead = 4 << 10
    /// The memory-budget refusal: a client can retry once windows have shrunk or sessions left.
    static let refusal = Problem(503, "memory-budget", "the server holds as much as its memory budget (--max-memory) allows; reads still work, retry writes later",
                                 headers: [("Retry-After", "1")])

    init(limit: Int, countsResident: Bool = true) {
        self.limit = max(1, limit)
        self.countsResident = countsResident
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

    var shouldShrink: Bool { Double(used) >= Double(limit) * Self.shrinkFraction }

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

    /// Resident bytes of the process from `/proc/self/statm`, read at most every 10 ms.
    func resident() -> Int {
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        let last = sampledAtMillis.load(ordering: .relaxed)
        if now - last < 10 { return residentSample.load(ordering: .relaxed) }
        sampledAtMillis.store(now, ordering: .relaxed)
        let value = Self.readResident() ?? residentSample.load(ordering: .relaxed)
        residentSample.store(value, ordering: .relaxed)
        return value
    }

    /// Gives freed memory back to the kernel, so the resident size follows what was let go.
    func returnFreedMemory() {
        _ = Self.mallocTrim?(0)
    }

    /// glibc's `malloc_trim`, which the Glibc module does not import (it is in malloc.h).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    static func readResident() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

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
