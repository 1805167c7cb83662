#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The states of `Connection.handoff`: `sequence << 4 | close | nudge | state`.
///
/// An answer produced on another thread (the journal's, after a sync) would otherwise be queued
/// for the connection's loop, which has to wake up, be scheduled and write it: on two cores
/// shared by the server's loops, its journal writer and the load generator, that wait is a large
/// share of a `--fsync always` request (`bash scripts/bench-fsync.sh` measures it). So the loop lends the
/// socket to the answering thread while it has nothing of its own to write there:
///
/// - **armed**: the loop dispatched request `sequence`, the handler has not answered, and nothing
///   is queued for the socket. From here until it takes the connection back, the loop neither
///   writes to the descriptor nor closes it.
/// - **sending**: another thread won the answer (compare-exchange from armed) and is writing it.
/// - **sent**: written whole. The loop finishes the exchange (the request is answered; a
///   pipelined one may run; `close` says the answer carried `Connection: close`) the next time
///   it looks: the connection's next readable event (the client's next request), a `.directAnswered`
///   command, its sweep, or shutdown.
/// - **nudge**: set by the loop while armed or sending when it has something waiting on the answer
///   (buffered input, the peer's FIN): the sender then queues a command, as no event may come.
///
/// An answer the socket does not take whole goes back to the loop with what is left, in order.
enum DirectAnswer {
    static let armed: UInt64 = 1
    static let sending: UInt64 = 2
    static let sent: UInt64 = 3
    static let stateMask: UInt64 = 3
    static let nudge: UInt64 = 4
    static let close: UInt64 = 8

    static func word(sequence: UInt64, state: UInt64) -> UInt64 { sequence << 4 | state }

    /// `Date` for answers written off the loops (the loops' encoders are theirs alone), rendered
    /// once a second.
    private static let date = Mutex<(second: Int, line: [UInt8])>((-1, []))

    static func dateLine() -> [UInt8] {
        let now = time(nil)
        return date.withLock { cached in
            if cached.second != now { cached = (now, ResponseEncoder.dateLine(at: now)) }
            return cached.line
        }
    }
}
