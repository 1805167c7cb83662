import SessionCore

extension SessionOutcome {
    /// The problem document a refusing outcome is answered with; nil for an answer (the request's
    /// own, or a first answer replayed), which the session renders from what it kept. `key`: the
    /// request's Idempotency-Key, which the machine's outcomes leave to the host.
    func problem(key: String?) -> Problem? {
        switch self {
        case .answer, .replayOf, .replay: nil
        case .keyReused:
            Problem(422, "idempotency-key-reused", "Idempotency-Key '\(key ?? "")' was first used with another body")
        case .journalUnavailable:
            SessionProblems.journalUnavailable
        case .headStuck:
            // The journal refused an append and the state before it could not be rebuilt. Writes
            // would reach the journal after a gap, and reads would show a version no restart has;
            // a restart rebuilds the session from its journal.
            Problem(503, "journal-unavailable", "the session's newest actions could not be made durable", headers: [("Retry-After", "1")])
        case .notDurableInTime:
            Problem(503, "journal-unavailable", "the session's newest actions are not durable yet (the disk is slow); nothing was read",
                    headers: [("Retry-After", "1")])
        case .notFound:
            SessionProblems.notFound
        }
    }
}

extension SessionProblems {
    /// The journal refused the actions, or an append before them; nothing changed.
    static var journalUnavailable: Problem {
        Problem(503, "journal-unavailable", "the action could not be made durable; nothing changed", headers: [("Retry-After", "1")])
    }
}
