import StoreCore
import StoreKinds

/// An export document read back for `POST /sessions/import` (docs/API.md "Operators"); every
/// refusal is 422 `invalid-export` with a `detail` naming the member.
///
/// ```swift
/// let export = try SessionExport(json: JSONReader.parse(body), kinds: .shipped)
/// export.version   // baseVersion + actions.count
/// ```
struct SessionExport {
    static let format = "storehouse-session/1"

    let id: String
    let kind: any StoreKind
    let createdAt: Int64
    let tokenHash: [UInt8]
    /// 0: never expires.
    let ttlSeconds: Int
    let baseVersion: Int
    let state: JSONValue
    let actions: [ActionRecord]
    let idempotency: [(key: String, entry: IdempotencyCache.Entry)]

    /// The version the session is at once imported.
    var version: Int { baseVersion + actions.count }

    /// `kinds`: the server's; an export of a kind it does not have is refused.
    init(json: JSONValue, kinds: KindRegistry) throws(Problem) {
        func invalid(_ member: String, _ what: String) -> Problem {
            Problem(422, "invalid-export", "\(member): \(what)")
        }
        guard case .object(let o) = json else { throw invalid("the body", "an export document is a JSON object") }
        guard case .string(let format)? = o["format"], format == Self.format else {
            throw invalid("format", "expected \"\(Self.format)\"")
        }
        guard case .string(let id)? = o["id"], Secrets.isWellFormedID(id) else { throw invalid("id", "expected a session id") }
        guard case .string(let kindName)? = o["kind"] else { throw invalid("kind", "expected a kind's name") }
        guard let kind = kinds.kind(named: kindName) else {
            throw invalid("kind", "no store kind is called '\(kindName.prefix(64))'")
        }
        guard case .string(let created)? = o["createdAt"], let createdAt = Timestamp.millis(iso8601: created) else {
            throw invalid("createdAt", "expected an ISO-8601 time")
        }
        var ttlSeconds = 0
        switch o["ttlSeconds"] {
        case nil, .null?: break
        case .int(let seconds)? where (0...SessionLifetime.maxTTLSeconds).contains(seconds): ttlSeconds = seconds
        default: throw invalid("ttlSeconds", "expected null or an integer from 0 to \(SessionLifetime.maxTTLSeconds)")
        }
        guard case .string(let hash)? = o["tokenHash"] else { throw invalid("tokenHash", "expected the token's SHA-256 in hex") }
        let tokenHash = SnapshotCoding.hexBytes(hash)
        guard tokenHash.count == 32 else { throw invalid("tokenHash", "expected 64 lowercase hex digits") }
        guard case .int(let baseVersion)? = o["baseVersion"], baseVersion >= 0 else {
            throw invalid("baseVersion", "expected an integer of at least 0")
        }
        guard let state = o["state"], state != .null else { throw invalid("state", "expected the state at baseVersion") }
        guard case .array(let list)? = o["actions"] else { throw invalid("actions", "expected an array of action log entries") }
        var actions: [ActionRecord] = []
        actions.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard case .int(let version)? = item["version"], version == baseVersion + index + 1 else {
                throw invalid("actions[\(index)].version", "expected \(baseVersion + index + 1)")
            }
            do { actions.append(try ActionRecord(record: item)) } catch {
                throw invalid("actions[\(index)]", "\(error)")
            }
        }
        guard case .array(let keys)? = o["idempotency"] else { throw invalid("idempotency", "expected an array of kept keys") }
        var idempotency: [(key: String, entry: IdempotencyCache.Entry)] = []
        for (index, item) in keys.enumerated() {
            guard let entry = SnapshotCoding.idempotencyEntry(item), entry.entry.bodyHash.count == 32 else {
                throw invalid("idempotency[\(index)]", "expected {\"key\", \"hash\", \"first\", \"last\", \"minimal\", \"createdAt\", \"refusal\"?}")
            }
            idempotency.append(entry)
        }
        self.id = id
        self.kind = kind
        self.createdAt = createdAt
        self.tokenHash = tokenHash
        self.ttlSeconds = ttlSeconds
        self.baseVersion = baseVersion
        self.state = state
        self.actions = actions
        self.idempotency = idempotency
    }
}
