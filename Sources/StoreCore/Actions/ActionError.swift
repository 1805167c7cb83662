/// Why an action was refused; each case maps to one problem slug of docs/API.md.
public enum ActionError: Error, Sendable, Equatable {
    /// Not an object, or no string "type" (422 `invalid-action`).
    case invalidAction(detail: String)
    /// 422 `unknown-action`, with the kind's client-sendable types.
    case unknownAction(type: String, validTypes: [String])
    /// 422 `invalid-payload`; `detail` names the field.
    case invalidPayload(detail: String)
    /// 403 `internal-action`: an effect-only type sent by a client.
    case internalAction(type: String)
    /// 409 `action-rejected`: the reducer refused it in the current state.
    case rejected(detail: String)

    /// The problem slug docs/API.md uses for this error.
    public var slug: String {
        switch self {
        case .invalidAction: return "invalid-action"
        case .unknownAction: return "unknown-action"
        case .invalidPayload: return "invalid-payload"
        case .internalAction: return "internal-action"
        case .rejected: return "action-rejected"
        }
    }

    /// The HTTP status docs/API.md gives it.
    public var status: Int {
        switch self {
        case .internalAction: return 403
        case .rejected: return 409
        default: return 422
        }
    }

    /// A human-readable detail for the problem document.
    public var detail: String {
        switch self {
        case .invalidAction(let d), .invalidPayload(let d), .rejected(let d): return d
        case .unknownAction(let t, let valid): return "unknown action type \"\(t)\"; valid types: \(valid.joined(separator: ", "))"
        case .internalAction(let t): return "\"\(t)\" is sent only by the store's effects"
        }
    }
}

/// A batch refused as a whole: the action at `index` failed with `error`; nothing was applied.
public struct BatchError: Error, Sendable, Equatable {
    public var index: Int
    public var error: ActionError
    public init(index: Int, error: ActionError) { self.index = index; self.error = error }
}
