/// A first answer as the idempotency ledger weighs it against its budget.
///
/// ```swift
/// extension [UInt8]: LedgerAnswer { public var byteCount: Int { count } }
/// ```
public protocol LedgerAnswer {
    /// The bytes the answer holds (its body), counted against `IdempotencyLedger.answerBudget`.
    var byteCount: Int { get }
}

extension [UInt8]: LedgerAnswer {
    public var byteCount: Int { count }
}
