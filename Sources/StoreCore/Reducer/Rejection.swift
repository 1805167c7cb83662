/// A reducer's refusal. The store rolls the state back and the server answers
/// 409 `action-rejected` or 422 `invalid-payload`.
public enum Rejection: Error, Sendable, Equatable {
    /// Not allowed in the current state (e.g. saving a non-prime).
    case rejected(String)
    /// The payload names something the state does not have (an unknown task id, an index out of range).
    case invalidPayload(String)

    @inlinable var actionError: ActionError {
        switch self {
        case .rejected(let d): return .rejected(detail: d)
        case .invalidPayload(let d): return .invalidPayload(detail: d)
        }
    }
}

/// What a reducer knows besides state and action: the action's stamp.
/// Reducers never read a clock, so replaying the log rebuilds identical state.
public struct ActionContext: Sendable, Hashable {
    /// Milliseconds since the Unix epoch, stamped by the server.
    public var at: Int64
    public var source: ActionSource
    @inlinable public init(at: Int64, source: ActionSource = .client) { self.at = at; self.source = source }
}
