import StoreCore

/// The problems a session answers with, in one place so every route words them alike.
enum SessionProblems {
    static let notFound = Problem(404, "session-not-found", "no session has this id")

    /// What a session whose journal could not be replayed at start answers, except to `DELETE`.
    static let damaged = Problem(503, "session-damaged",
                                 "this session's journal is damaged, so it was not recovered at start (the server's log says where); its files are kept for inspection; DELETE removes them")

    static func versionGone(_ version: Int, oldest: Int) -> Problem {
        Problem(404, "version-not-found", "version \(version) is older than the kept history (oldest \(oldest))",
                extra: [("oldestVersion", .int(oldest))])
    }

    /// Maps a store refusal to its status and slug (API.md "Actions"); batches name the failing index.
    static func refusal(_ error: any Error, batch: Bool) -> Problem {
        let index: Int?
        let actionError: ActionError
        if let batchError = error as? BatchError {
            index = batchError.index
            actionError = batchError.error
        } else if let single = error as? ActionError {
            index = nil
            actionError = single
        } else {
            return Problem(500, "internal-error", "the store failed unexpectedly")
        }
        var extra: [(String, JSONValue)] = []
        if batch, let index { extra.append(("index", .int(index))) }
        let prefix = batch ? "action \(index ?? 0): " : ""
        switch actionError {
        case .invalidAction(let detail):
            return Problem(422, "invalid-action", prefix + detail, extra: extra)
        case .unknownAction(let type, let validTypes):
            return Problem(422, "unknown-action", prefix + "unknown action type '\(Problem.quote(type))'",
                           extra: extra + [("validTypes", .array(validTypes.map(JSONValue.string)))])
        case .invalidPayload(let detail):
            return Problem(422, "invalid-payload", prefix + detail, extra: extra)
        case .internalAction(let type):
            return Problem(403, "internal-action", prefix + "'\(Problem.quote(type))' is sent only by the store's effects", extra: extra)
        case .rejected(let detail):
            return Problem(409, "action-rejected", prefix + detail, extra: extra)
        }
    }
}
