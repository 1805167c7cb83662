import StoreCore

/// Where a forked session came from: session `id` at `version` (`POST /sessions {"from": …}`).
/// Kept in the session's metadata record, so it survives a restart.
///
/// ```swift
/// ForkOrigin(id: "3q2-7wBqT0uX2mYw9bZ1Qg", version: 4).json   // {"id":"3q2-…","version":4}
/// ```
struct ForkOrigin: Sendable, Equatable {
    let id: String
    let version: Int

    var json: JSONValue { .object(["id": .string(id), "version": .int(version)]) }

    init(id: String, version: Int) {
        self.id = id
        self.version = version
    }

    /// nil unless `value` is `{"id": string, "version": integer ≥ 0}`.
    init?(_ value: JSONValue?) {
        guard case .object(let o)? = value, case .string(let id)? = o["id"], case .int(let version)? = o["version"], version >= 0 else { return nil }
        self.init(id: id, version: version)
    }
}
