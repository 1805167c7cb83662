import SessionCore
import StoreCore

extension Session {
    /// The export document of docs/API.md "Operators" (`storehouse-session/1`): the state at the
    /// oldest version the kept history starts from, every kept action after it up to the newest
    /// durable version (the entries of the action log), and the kept idempotency keys. Importing
    /// it rebuilds this session: same id, token (as its SHA-256), version, state bytes, log and keys.
    ///
    /// ```swift
    /// let document = try session.exportDocument()   // {"format":"storehouse-session/1","id":…}
    /// ```
    func exportDocument() throws(Problem) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let head = durableVersion
        let plan = try replayPlanLocked(to: min(oldestVersionLocked, head))
        let base = plan.base
        let entries = base.version < head ? history.entries((base.version + 1)...head) : []
        guard entries.count == head - base.version else { throw SessionProblems.versionGone(base.version, oldest: oldestVersionLocked) }
        var out: [UInt8] = []
        out.reserveCapacity(256 + entries.count * 96)
        out += Array(#"{"format":"\#(SessionExport.format)","id":"#.utf8)
        out += JSONValue.string(id).encoded()
        out += Array(#","kind":"#.utf8)
        out += JSONValue.string(kind.name).encoded()
        out += Array(#","createdAt":""#.utf8)
        Timestamp.append(millis: createdAt, to: &out)
        out += Array(#"","ttlSeconds":\#(lifetime.ttlSeconds > 0 ? String(lifetime.ttlSeconds) : "null"),"tokenHash":""#.utf8)
        out += Array(Secrets.hex(tokenHash).utf8)
        out += Array(#"","baseVersion":\#(base.version),"state":"#.utf8)
        base.state.encode(into: &out)
        out += Array(#","actions":["#.utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            RecordCoding.appendAction(entry.record, version: entry.version, to: &out)
        }
        out += Array(#"],"idempotency":"#.utf8)
        SnapshotCoding.appendIdempotency(machine.ledger, through: head, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
