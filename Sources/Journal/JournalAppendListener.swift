/// Hears the outcome of appends as an object the journal retains, where a closure would be one
/// allocation per append (with a copy of what it captures) and one more to free it.
///
/// The journal calls it as it calls a completion: once per append, on the thread that processes
/// the group, in call order per session, never inside `append`.
///
///     final class Counter: JournalAppendListener {
///         let durable = Atomic(0)
///         func appendCompleted(_ result: Result<Void, JournalError>) {
///             if case .success = result { durable.add(1, ordering: .relaxed) }
///         }
///         func groupCompleted() {}
///     }
///     journal.append(session: "abc", records: [(version: 1, bytes: line)], listener: counter)
public protocol JournalAppendListener: AnyObject, Sendable {
    /// One append's outcome: `.success` once it is as durable as the policy promises.
    func appendCompleted(_ result: Result<Void, JournalError>)
    /// The completions of the group that called `appendCompleted` have all run, when that asked
    /// for it (`Journal.afterGroupCompletes(notify:)`): its answers can be settled together.
    func groupCompleted()
}
