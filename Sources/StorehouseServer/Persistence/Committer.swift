/// Who makes an append part of a journal group: said by whoever appends, never inferred.
///
/// A request served on event loop `N` appends with `.eventLoop(N)`: the append waits in the
/// journal's queue, and loop `N` commits it with everything else its iteration appended, as its
/// last step before it waits (`Router.eventLoopWillWait(loop:)`, `SessionLog.commit(loop:)`).
/// Anything else (an effect on the cooperative pool, a request moved off its loop, a refusal
/// decided again from the journal's thread) appends with `.journalWriter`, which wakes the
/// journal's writer thread at once.
///
/// ```swift
/// session.submit(submission, committer: .eventLoop(exchange.loopIndex)) { exchange.send($0) }
/// ```
enum Committer: Sendable, Equatable {
    /// The journal's writer thread, woken for this append.
    case journalWriter
    /// Event loop `N`, at the end of its current iteration. Only ever given on that loop's thread.
    case eventLoop(Int)
}
