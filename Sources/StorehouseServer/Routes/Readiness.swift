import Synchronization

/// Whether the server takes session requests: not while recovering from disk, not while draining.
final class Readiness: Sendable {
    enum Phase: Int { case recovering = 0, ready = 1, draining = 2 }
    private let phase = Atomic<Int>(Phase.recovering.rawValue)

    func set(_ value: Phase) { phase.store(value.rawValue, ordering: .releasing) }

    /// `problem` as answered: a client may retry in a second (at another instance, or this one restarted).
    static func refusal(_ problem: Problem) -> Problem {
        var refused = problem
        refused.headers.append(("Retry-After", "1"))
        return refused
    }

    var isDraining: Bool { phase.load(ordering: .acquiring) == Phase.draining.rawValue }
    var isRecovering: Bool { phase.load(ordering: .acquiring) == Phase.recovering.rawValue }

    /// nil when ready; otherwise the 503 to answer (with `Retry-After` at the router).
    var problem: Problem? {
        switch Phase(rawValue: phase.load(ordering: .acquiring)) {
        case .ready: return nil
        case .draining:
            // The connection ends with this answer (RFC 9112 §9.6): a client that kept it would
            // send its retry to a server that is going away, and learn so only from a reset.
            var problem = Problem(503, "not-ready", "draining")
            problem.headers.append(("Connection", "close"))
            return problem
        default: return Problem(503, "not-ready", "recovering")
        }
    }
}
