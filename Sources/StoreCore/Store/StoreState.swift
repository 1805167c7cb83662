/// A kind's state as the `Store` needs it: JSON both ways, and change tracking that makes
/// patches and rollbacks cost O(change), never O(state).
///
/// The mechanism (one for every reducer the Store runs):
/// - Before each action the Store takes a `checkpoint()`. Small parts are copied into it
///   (copy-on-write makes that O(1) until written); an `EntityTable` only hands out a mark in
///   its change log (it logs each insert/update/remove with the old entity, never copying the table).
/// - After the action, `writePatch(since:)` diffs the small parts against the checkpoint and
///   turns the tables' log entries since the mark into operations.
/// - On a refusal anywhere in a batch, `rollback(to:)` with the batch's first checkpoint
///   restores the small parts and undoes the tables' logs in reverse. So a refused action or
///   batch leaves state untouched whatever the reducer did before throwing.
/// - After a successful batch `commit()` drops the logs.
///
/// A state without entity tables gets all four for free by conforming to `PatchDiffable`
/// (its checkpoint is a copy of itself): keep large collections in `EntityTable`s.
public protocol StoreState: Sendable, JSONEncodable, JSONDecodable, JSONPointerReadable {
    associatedtype Checkpoint
    static var initial: Self { get }
    func checkpoint() -> Checkpoint
    func writePatch(since checkpoint: Checkpoint, into patch: inout PatchWriter)
    mutating func rollback(to checkpoint: Checkpoint)
    mutating func commit()
}

extension StoreState where Self: PatchDiffable, Checkpoint == Self {
    @inlinable public func checkpoint() -> Self { self }
    @inlinable public func writePatch(since checkpoint: Self, into patch: inout PatchWriter) {
        diff(from: checkpoint, at: "", into: &patch)
    }
    @inlinable public mutating func rollback(to checkpoint: Self) { self = checkpoint }
    @inlinable public mutating func commit() {}
}
