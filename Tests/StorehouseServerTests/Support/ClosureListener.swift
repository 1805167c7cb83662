import Journal
@testable import StorehouseServer

/// A closure as a `JournalAppendListener`, for tests that append to a log directly.
final class ClosureListener: JournalAppendListener {
    private let body: @Sendable (Result<Void, JournalError>) -> Void

    init(_ body: @escaping @Sendable (Result<Void, JournalError>) -> Void) { self.body = body }

    func appendCompleted(_ result: Result<Void, JournalError>) { body(result) }

    func groupCompleted() {}
}

extension SessionLog {
    /// `append(sessionID:records:committer:listener:)` with a closure to hear the outcome.
    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])], committer: Committer,
                completion: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        append(sessionID: sessionID, records: records, committer: committer, listener: ClosureListener(completion))
    }
}
