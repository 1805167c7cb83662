import StoreCore

/// What an imported session's metadata record holds besides the usual: the exported log from
/// `baseVersion` (whose state is the record's `state`) to `version`, and the exported
/// idempotency keys. Written in the creation record itself, so the import is one journal write:
/// it is there whole or not at all.
///
/// Recovery rebuilds the session from it while no snapshot is newer than `version`, so the
/// imported log survives a restart as the log of any session does. An import is complete once
/// the snapshot at `version` is on disk (it tells the journal where the session's versions
/// continue); recovery removes an imported session without one: the import was cut short and
/// never answered.
///
/// ```swift
/// SnapshotCoding.meta(id: id, kind: "counter", createdAt: t, tokenHash: h, state: base,
///                     imported: .init(baseVersion: 0, version: 2, actions: Array("[…]".utf8), idempotency: Array("[]".utf8)))
/// ```
struct ImportedBase {
    let baseVersion: Int
    let version: Int
    let actions: [ActionRecord]
    let idempotency: [(key: String, entry: IdempotencyCache.Entry)]

    /// The import as it goes into the record: `actions` and `idempotency` are JSON arrays (the
    /// action log's entries and a snapshot's keys).
    struct Encoded {
        let baseVersion: Int
        let version: Int
        let actions: [UInt8]
        let idempotency: [UInt8]
    }
}
