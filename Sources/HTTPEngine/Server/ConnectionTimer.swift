/// The deadline part of a connection's state machine, pure so tests drive it with a fake clock.
///
/// ```swift
/// var timer = ConnectionTimer(now: 0)
/// timer.exchanged(now: 2)                  // the first bytes: from `.connected` to `.idle`
/// timer.enter(.head, now: 5)
/// timer.expired(now: 10_006, timeouts: t)   // .requestTimeout when t.header == 10_000
/// ```
struct ConnectionTimer: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// Accepted, no byte received yet: the first-byte deadline, much shorter than the idle
        /// timeout, so connections that never speak do not hold a slot; closed silently.
        case connected
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
        var firstByte: Int64 = 10_000
        var linger: Int64 = 2_000
    }

    private(set) var phase: Phase = .connected
    private(set) var since: Int64

    init(now: Int64) { since = now }

    /// Moves to `phase`; the clock restarts only when the phase changes.
    mutating func enter(_ phase: Phase, now: Int64) {
        if phase != self.phase {
            self.phase = phase
            since = now
        }
    }

    /// Bytes were read or written. The idle timeout counts from the last byte exchanged: a
    /// connection whose requests are answered inside the read that brought them never leaves the
    /// idle phase, so a phase change alone would close it mid-conversation (RFC 9112 §9.8 lets a
    /// server close an idle connection, not one in use). The header and body deadlines keep their
    /// start: a drip of bytes must not extend them (slowloris).
    mutating func exchanged(now: Int64) {
        switch phase {
        case .connected:
            phase = .idle
            since = now
        case .idle, .writing:
            since = now
        case .head, .body, .busy, .streaming, .lingering:
            break
        }
    }

    func expired(now: Int64, timeouts: Timeouts) -> Action {
        let elapsed = now - since
        switch phase {
        case .connected: return elapsed >= timeouts.firstByte ? .close : .none
        case .idle: return elapsed >= timeouts.idle ? .close : .none
        case .head: return elapsed >= timeouts.header ? .requestTimeout : .none
        case .body: return elapsed >= timeouts.body ? .requestTimeout : .none
        case .writing: return elapsed >= timeouts.idle ? .close : .none
        case .lingering: return elapsed >= timeouts.linger ? .close : .none
        case .busy, .streaming: return .none
        }
    }
}
