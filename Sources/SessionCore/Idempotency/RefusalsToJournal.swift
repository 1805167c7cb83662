/// The refusals kept as Idempotency-Keys' first answers that the journal has yet to make durable.
///
/// A kept refusal (`IdempotencyLedger.Entry.refusal`) changes no state, so no record of its own
/// journals it: the next journaled record carries every refusal still kept, and goes on carrying
/// them in each record after it until one that carried them is durable. Each record carries all
/// of them, not only the new ones, since that record changes the state they were decided on and an
/// earlier carrier may yet be refused. A log that makes records durable as it takes them (in
/// memory) carries nothing. The host encodes what a record carries; this part only says which.
///
/// ```swift
/// var ledger = IdempotencyLedger<[UInt8], Int>()
/// var refusals = RefusalsToJournal(journaled: true)
/// refusals.keep("k", bodyHash: [1], answer: Array("{…}".utf8), decidedOn: 4, minimal: false, now: 0, durable: true, in: &ledger)
/// let carried = refusals.toCarry(in: ledger)   // ["k"]: its entry goes onto the next record
/// refusals.carrierDurable(carried)              // that record is durable: nothing waits
/// ```
public struct RefusalsToJournal: Sendable {
    /// The keys waiting, oldest first.
    public var keys: [String] { waiting }
    @usableFromInline var waiting: [String] = []
    /// False with a log that makes records durable as it takes them: nothing waits.
    public let journaled: Bool

    public init(journaled: Bool) { self.journaled = journaled }

    /// Whether no record needs to carry anything: the request path's test, in O(1).
    @inlinable public var isEmpty: Bool { waiting.isEmpty }

    /// Keeps `answer`, a refusal decided on version `decidedOn`, as `key`'s first answer (API.md:
    /// a repeat "returns the first answer again without applying anything"), so a retry of a
    /// refusal the client never got is not applied on a later state where it would pass. Decided
    /// on a head not yet `durable`, the entry is pending as a success's is: repeats wait for it,
    /// and a rollback drops it. Past the ledger's capacity the oldest keys are evicted from it,
    /// so they stop waiting here too. False, keeping nothing, for an answer over
    /// `maxRefusalBytes` (one that echoes a long body back is refused for the body alone).
    @discardableResult
    public mutating func keep<Answer, Waiter>(_ key: String, bodyHash: [UInt8], answer: Answer, decidedOn: Int, minimal: Bool, now: Int64,
                                              durable: Bool, in ledger: inout IdempotencyLedger<Answer, Waiter>) -> Bool {
        guard answer.byteCount <= IdempotencyLedger<Answer, Waiter>.maxRefusalBytes else { return false }
        ledger.insert(key, .init(bodyHash: bodyHash, firstVersion: decidedOn, lastVersion: decidedOn, minimal: minimal, createdAt: now,
                                 response: answer, durable: durable, refusal: true))
        guard journaled else { return true }
        waiting.append(key)
        if waiting.count > ledger.capacity { waiting.removeFirst(waiting.count - ledger.capacity) }
        return true
    }

    /// The keys of the refusals the next record carries, oldest first: every key still kept as a
    /// refusal with its answer in `ledger` (the host encodes each entry). One evicted, rolled back
    /// or used again stops waiting. At most the ledger's capacity, of `maxRefusalBytes` each.
    @inlinable
    public mutating func toCarry<Answer, Waiter>(in ledger: IdempotencyLedger<Answer, Waiter>) -> [String] {
        guard !waiting.isEmpty else { return [] }
        let carried = waiting.filter { key in ledger.entries[key].map { $0.refusal && $0.response != nil } ?? false }
        if carried.count < waiting.count { waiting = carried }
        return carried
    }

    /// A record that carried `carried` is durable: those refusals are on disk and stop waiting.
    public mutating func carrierDurable(_ carried: [String]) {
        guard !carried.isEmpty, !waiting.isEmpty else { return }
        // A set: with the ledger's 1,000 refusals waiting, a list's `contains` made this a
        // million comparisons under the session's lock.
        let carried = Set(carried)
        waiting.removeAll(where: carried.contains)
    }

    /// The head a kept refusal was decided on is durable, so the refusal is: its entry is marked
    /// so, and the repeats that waited on it are returned, to be answered with it.
    public func decidedOnDurableHead<Answer, Waiter>(_ key: String, in ledger: inout IdempotencyLedger<Answer, Waiter>) -> [Waiter] {
        guard let entry = ledger.entries[key], entry.refusal, !entry.durable else { return [] }
        ledger.update(key) { $0.durable = true; $0.waiters = [] }
        return entry.waiters
    }

    /// Recovery's side: puts an entry read back from the journal (a record's mark or a refusal it
    /// carried, a snapshot's) into `ledger`, in the order they were set live (the ledger evicts
    /// by it). A refusal several records carried (each until one was durable), or a snapshot and
    /// a record, is one entry: it keeps its first place.
    public static func recover<Answer, Waiter>(_ key: String, _ entry: IdempotencyLedger<Answer, Waiter>.Entry,
                                               into ledger: inout IdempotencyLedger<Answer, Waiter>) {
        if entry.refusal, let kept = ledger.entries[key], kept.refusal, kept.firstVersion == entry.firstVersion,
           kept.createdAt == entry.createdAt { return }
        ledger.insert(key, entry)
    }
}
