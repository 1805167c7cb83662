/// The registry's sessions in memory, keyed by their packed ids (`PackedSessionID`): a request's
/// lookup hashes the id's few words, read off the path's bytes, instead of a `String` made for it.
///
/// ```swift
/// var resident = ResidentSessions()
/// resident.insert(session)
/// resident[session.key] === session   // true
/// ```
struct ResidentSessions {
    private var table: [PackedSessionID: Session] = [:]

    var count: Int { table.count }
    var values: Dictionary<PackedSessionID, Session>.Values { table.values }

    subscript(key: PackedSessionID) -> Session? {
        get { table[key] }
        set { table[key] = newValue }
    }

    /// By the id as a string: nil for one no session can have (`PackedSessionID.init?(_:)`).
    subscript(id: String) -> Session? {
        get { PackedSessionID(id).flatMap { table[$0] } }
        set {
            guard let key = PackedSessionID(id) else { return }
            table[key] = newValue
        }
    }

    /// Adds `session` under its key; the session it replaces, if any.
    @discardableResult
    mutating func insert(_ session: Session) -> Session? {
        table.updateValue(session, forKey: session.key)
    }

    mutating func removeValue(forKey id: String) -> Session? {
        guard let key = PackedSessionID(id) else { return nil }
        return table.removeValue(forKey: key)
    }
}
