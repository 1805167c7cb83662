import HTTPEngine
import SessionCore

/// A session's idempotency ledger: first answers kept as the HTTP responses they were, repeats
/// waiting on a key as their request ids (`Session.waitingRepeats` holds their replies).
typealias IdempotencyCache = IdempotencyLedger<HTTPResponse, RequestID>

extension HTTPResponse: LedgerAnswer {
    public var byteCount: Int { body.count }
}

extension IdempotencyCache.Entry {
    /// A refusal read back from the journal or a snapshot.
    init(keptRefusal r: RecordCoding.KeptRefusal) {
        self.init(bodyHash: r.bodyHash, firstVersion: r.version, lastVersion: r.version, minimal: r.minimal, createdAt: r.createdAt,
                  response: Problem.storedResponse(status: r.status, body: r.body), durable: true, refusal: true)
    }

    /// This entry as a journaled refusal; nil unless it is a kept refusal.
    func keptRefusal(key: String) -> RecordCoding.KeptRefusal? {
        guard refusal, let response else { return nil }
        return .init(key: key, bodyHash: bodyHash, version: firstVersion, minimal: minimal, createdAt: createdAt,
                     status: response.status, body: response.body)
    }
}
