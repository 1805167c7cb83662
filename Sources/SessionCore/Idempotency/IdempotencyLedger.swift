/// The `Idempotency-Key`s a session has seen: the last `capacity` keys, each for at
/// most `lifetime` milliseconds (defaults: 1,000 keys, 24 hours).
///
/// The first answer is a success, or a refusal decided by applying the actions (see
/// `Entry.refusal`); what fails before that (a precondition, the journal) keeps nothing.
///
/// Each key keeps its first answer while the answers kept fit in `answerBudget` bytes; past it
/// the oldest answers are let go (the key stays) and a repeat renders its answer again from the
/// history, as after a restart. A full-state answer is the whole state, so without the budget a
/// client that sends a key with every POST (what retry-safe clients do) would keep 1,000 copies
/// of a large state per session.
///
/// `Answer` is what a first answer is kept as (the server keeps its HTTP response; the ledger only
/// weighs it), `Waiter` what a repeat waiting on a key not durable yet is held as.
///
/// ```swift
/// var ledger = IdempotencyLedger<[UInt8], Int>(capacity: 2)
/// ledger.insert("k", .init(bodyHash: [1], firstVersion: 1, lastVersion: 1, minimal: false, createdAt: 0,
///                          response: Array("ok".utf8), durable: false))
/// ledger.update("k") { $0.waiters.append(7) }
/// ledger.drop(after: 0)  // [7]: the repeats to refuse once version 1 is rolled back
/// ```
public struct IdempotencyLedger<Answer: LedgerAnswer, Waiter> {
    public struct Entry {
        public let bodyHash: [UInt8]
        public let firstVersion: Int
        public let lastVersion: Int
        public let minimal: Bool
        public let createdAt: Int64
        /// The first answer; nil after a restart or once let go for the budget, when it is
        /// rendered again from history.
        public var response: Answer?
        public var durable: Bool
        public var waiters: [Waiter] = []
        /// The first answer was a refusal decided by applying the actions. It is journaled on the
        /// next action's record and in snapshots (`RecordCoding.KeptRefusal`), and never let go,
        /// as it cannot be rendered again from history. Outside the budget: a kept refusal is at
        /// most `maxRefusalBytes`.
        public var refusal = false

        public init(bodyHash: [UInt8], firstVersion: Int, lastVersion: Int, minimal: Bool, createdAt: Int64, response: Answer?,
                    durable: Bool, waiters: [Waiter] = [], refusal: Bool = false) {
            self.bodyHash = bodyHash
            self.firstVersion = firstVersion
            self.lastVersion = lastVersion
            self.minimal = minimal
            self.createdAt = createdAt
            self.response = response
            self.durable = durable
            self.waiters = waiters
            self.refusal = refusal
        }

        /// What the entry counts against `answerBytes`.
        public var answerBytes: Int { refusal ? 0 : response?.byteCount ?? 0 }
    }

    /// 8 MiB of kept answers per session.
    public static var defaultAnswerBudget: Int { 8 << 20 }
    /// The largest refusal kept, so the refusals of a session's 1,000 keys hold at most 4 MiB. A
    /// larger one echoes a long action type or field name back: refused for the body alone, which
    /// a repeat of the same body is again.
    public static var maxRefusalBytes: Int { 4 << 10 }

    public private(set) var entries: [String: Entry] = [:]
    private var order: [String] = []
    /// Kept answers, oldest first, by key and insertion number; a name whose number is no longer
    /// the key's (the entry was dropped, evicted or inserted again) is stale and skipped.
    private var answered: [(key: String, insertion: Int)] = []
    /// The insertion number of each key's entry.
    private var insertions: [String: Int] = [:]
    private var nextInsertion = 0
    /// Bytes of the answers kept in `entries`.
    public private(set) var answerBytes = 0
    public let capacity: Int
    public let lifetime: Int64
    public let answerBudget: Int

    public init(capacity: Int = 1_000, lifetime: Int64 = 24 * 3_600_000, answerBudget: Int = 8 << 20) {
        self.capacity = capacity
        self.lifetime = lifetime
        self.answerBudget = answerBudget
    }

    /// The entries oldest first, in the order the cache evicts them (a snapshot writes them so, and
    /// recovery inserts them back in it).
    public var entriesInOrder: [(key: String, entry: Entry)] {
        order.compactMap { key in entries[key].map { (key, $0) } }
    }

    public func lookup(_ key: String, now: Int64) -> Entry? {
        guard let entry = entries[key], now - entry.createdAt < lifetime else { return nil }
        return entry
    }

    public mutating func insert(_ key: String, _ entry: Entry) {
        // A key inserted again (after it expired) moves to the back of the eviction order.
        if let old = entries.updateValue(entry, forKey: key) {
            answerBytes -= old.answerBytes
            order.removeAll { $0 == key }
        }
        answerBytes += entry.answerBytes
        order.append(key)
        nextInsertion += 1
        insertions[key] = nextInsertion
        if entry.response != nil && !entry.refusal { answered.append((key, nextInsertion)) }
        while order.count > capacity {
            // A key whose versions are not durable yet may have repeats waiting on it: it stays, and
            // while every other key is such a key the cache runs over `capacity` (it takes more than
            // `capacity` keyed requests in flight on one session). The key just inserted stays too.
            guard let index = order.dropLast().firstIndex(where: { entries[$0]?.durable ?? true }) else { break }
            let evictedKey = order.remove(at: index)
            insertions[evictedKey] = nil
            if let evicted = entries.removeValue(forKey: evictedKey) { answerBytes -= evicted.answerBytes }
        }
        letGoOfAnswersOverBudget()
    }

    public mutating func update(_ key: String, _ body: (inout Entry) -> Void) {
        guard var entry = entries[key] else { return }
        let before = entry.answerBytes
        body(&entry)
        answerBytes += entry.answerBytes - before
        entries[key] = entry
    }

    /// Every repeat still waiting on a key (the session is being deleted).
    public mutating func takeAllWaiters() -> [Waiter] {
        var waiters: [Waiter] = []
        for (key, entry) in entries where !entry.waiters.isEmpty {
            waiters += entry.waiters
            entries[key]?.waiters = []
        }
        return waiters
    }

    /// Forgets keys whose actions were rolled back; returns the repeats that were waiting on them.
    @discardableResult
    public mutating func drop(after version: Int) -> [Waiter] {
        var waiters: [Waiter] = []
        for (key, entry) in entries where entry.lastVersion > version {
            waiters += entry.waiters
            answerBytes -= entry.answerBytes
            entries[key] = nil
            insertions[key] = nil
        }
        order.removeAll { entries[$0] == nil }
        return waiters
    }

    /// Lets go of every kept answer but refusals (the server's memory budget is short): repeats
    /// render theirs again from history.
    public mutating func letGoOfAnswers() {
        guard answerBytes > 0 else { return }
        for (key, entry) in entries where entry.answerBytes > 0 && entry.durable {
            entries[key]?.response = nil
            answerBytes -= entry.answerBytes
        }
    }

    /// Lets go of the oldest kept answers until the rest fit the budget; the newest answer is
    /// kept even when it alone is larger.
    private mutating func letGoOfAnswersOverBudget() {
        var index = 0
        while answerBytes > answerBudget, index < answered.count - 1 {
            let (key, insertion) = answered[index]
            index += 1
            guard insertions[key] == insertion, let entry = entries[key], entry.answerBytes > 0 else { continue }
            entries[key]?.response = nil
            answerBytes -= entry.answerBytes
        }
        if index > 0 { answered.removeFirst(index) }
        // Stale names (dropped, evicted or replaced entries) are cleared whenever they outnumber the live ones.
        if answered.count > 2 * capacity {
            answered.removeAll { insertions[$0.key] != $0.insertion || entries[$0.key]?.response == nil }
        }
    }
}

extension IdempotencyLedger: Sendable where Answer: Sendable, Waiter: Sendable {}
extension IdempotencyLedger.Entry: Sendable where Answer: Sendable, Waiter: Sendable {}
extension IdempotencyLedger.Entry: Equatable where Answer: Equatable, Waiter: Equatable {}
