/// The deadline part of a connection's state machine, pure so tests drive it with a fake clock.
///
/// ```swift
/// var timer = ConnectionTimer(now: 0)
/// timer.enter(.head, now: 5)
/// timer.expired(now: 10_006, timeouts: t)   // .requestTimeout when t.header == 10_000
/// ```
struct ConnectionTimer: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// Keep-alive, no byte of the next request yet: idle timeout, closed silently (RFC 9112 §9.8).
        case idle
        /// Part of a header block received: header deadline (slowloris), answered 408.
        case head
        /// Head done, body incomplete: body deadline, answered 408.
        case body
        /// A handler owns the request: no deadline, the server decides.
        case busy
        /// A response is waiting for the client to read it: idle timeout since the last progress.
        case writing
        /// A streaming response: exempt, the server sends heartbeats.
        case streaming
        /// Answer sent, write side shut, draining the client's leftovers before close (RFC 9112 §9.6).
        case lingering
    }

    enum Action: Sendable, Equatable { case none, close, requestTimeout }

    struct Timeouts: Sendable, Equatable {
        var header: Int64
        var idle: Int64
        var body: Int64
        var linger: Int64 = 2_000
    }

    private(set) var phase: Phase = .idle
    private(set) var since: Int64

    init(now: Int64) { since = now }

    /// Moves to `phase`; the clock restarts only when the phase changes.
    mutating func enter(_ phase: Phase, now: Int64) {
        if phase != self.phase {
            self.phase = phase
            since = now
        }
    }

    /// Restarts the clock of the current phase (a write made progress).
    mutating func touch(now: Int64) { since = now }

    func expired(now: Int64, timeouts: Timeouts) -> Action {
        let elapsed = now - since
        switch phase {
        case .idle: return elapsed >= timeouts.idle ? .close : .none
        case .head: return elapsed >= timeouts.header ? .requestTimeout : .none
        case .body: return elapsed >= timeouts.body ? .requestTimeout : .none
        case .writing: return elapsed >= timeouts.idle ? .close : .none
        case .lingering: return elapsed >= timeouts.linger ? .close : .none
        case .busy, .streaming: return .none
        }
    }
}
