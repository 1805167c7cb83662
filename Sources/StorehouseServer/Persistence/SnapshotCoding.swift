import SessionCore
import StoreCore

/// The bytes of a session snapshot in the journal and of its metadata record.
///
/// A snapshot carries the idempotency window with the state, so keys survive a
/// restart even after the records that set them are compacted away; a kept refusal
/// carries its answer, which history cannot render again.
enum SnapshotCoding {
    static func encode(version: Int, state: [UInt8], updatedAt: Int64, idempotency: IdempotencyCache) -> [UInt8] {
        var out = head(version: version, updatedAt: updatedAt, idempotency: idempotency, capacity: state.count + 4_096)
        out += state
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The same bytes, the state encoded straight into them (one buffer of about `capacity`
    /// bytes, never a copy of a large state's JSON).
    static func encode(version: Int, state: SharedState, updatedAt: Int64, idempotency: IdempotencyCache, capacity: Int) -> [UInt8] {
        var out = head(version: version, updatedAt: updatedAt, idempotency: idempotency, capacity: capacity)
        state.encode(into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Everything before the state's bytes.
    private static func head(version: Int, updatedAt: Int64, idempotency: IdempotencyCache, capacity: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        out += Array(#"{"version":\#(version),"updatedAt":\#(updatedAt),"idempotency":"#.utf8)
        appendIdempotency(idempotency, through: version, to: &out)
        out += Array(#","state":"#.utf8)
        return out
    }

    /// The keys set through `version`, as a JSON array (a snapshot's and an export's `idempotency`).
    static func appendIdempotency(_ idempotency: IdempotencyCache, through version: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        var first = true
        // In eviction order: sorted by time, keys set in the same millisecond came back in the
        // dictionary's order, and a restart evicted other keys than the live cache had.
        for (key, entry) in idempotency.entriesInOrder where entry.lastVersion <= version {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out += Array(#"{"key":"#.utf8)
            out += JSONValue.string(key).encoded()
            out += Array(#","hash":""#.utf8) + Array(Secrets.hex(entry.bodyHash).utf8)
            out += Array(#"","first":\#(entry.firstVersion),"last":\#(entry.lastVersion),"minimal":\#(entry.minimal),"createdAt":\#(entry.createdAt)"#.utf8)
            if let refusal = entry.keptRefusal(key: key) {
                // The problem document as a string: read back byte for byte.
                out += Array(#","refusal":{"status":\#(refusal.status),"body":"#.utf8)
                out += JSONValue.string(String(decoding: refusal.body, as: UTF8.self)).encoded()
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    struct Decoded<State> {
        var version: Int
        var updatedAt: Int64
        var state: State
        var idempotency: [(key: String, entry: IdempotencyCache.Entry)]
    }

    /// The snapshot with its state as a `JSONValue`.
    static func decode(_ bytes: [UInt8]) throws -> Decoded<JSONValue> {
        try decode(bytes) { (r) throws(StateDecodingError) in try r.readValue() }
    }

    /// The snapshot in one pass over its bytes, `state` reading the state where it stands (a
    /// kind's `readState`: straight into the state, no `JSONValue` of it). Members in any order.
    static func decode<State>(_ bytes: [UInt8], state read: (inout JSONStreamReader) throws(StateDecodingError) -> State) throws -> Decoded<State> {
        var version: Int?, updatedAt: Int?, state: State?
        var entries: [(key: String, entry: IdempotencyCache.Entry)] = []
        do {
            try JSONStreamReader.read(bytes, maxDepth: 10_000) { (r) throws(StateDecodingError) in
                try r.beginObject()
                while let key = try r.nextKey() {
                    if key == "version" {
                        version = try r.readInt()
                    } else if key == "updatedAt" {
                        updatedAt = try r.readInt()
                    } else if key == "idempotency" {
                        entries = []
                        if case .array(let list) = try r.readValue() {
                            for item in list {
                                if let entry = idempotencyEntry(item) { entries.append(entry) }
                            }
                        }
                    } else if key == "state" {
                        do throws(StateDecodingError) { state = try read(&r) } catch { throw error.under("/state") }
                    } else {
                        try r.skipValue()
                    }
                }
            }
        } catch {
            throw RecordCoding.DecodeError(description: "snapshot does not decode: \(error)")
        }
        guard let version, let updatedAt, let state else { throw RecordCoding.DecodeError(description: "snapshot is not a session snapshot") }
        return Decoded(version: version, updatedAt: Int64(updatedAt), state: state, idempotency: entries)
    }

    /// One element of `appendIdempotency`'s array; nil when it is not one.
    static func idempotencyEntry(_ item: JSONValue) -> (key: String, entry: IdempotencyCache.Entry)? {
        guard case .object(let e) = item, case .string(let key)? = e["key"], case .string(let hash)? = e["hash"],
              case .int(let first)? = e["first"], case .int(let last)? = e["last"],
              case .bool(let minimal)? = e["minimal"], case .int(let createdAt)? = e["createdAt"] else { return nil }
        let bodyHash = hexBytes(hash)
        if case .object(let r)? = e["refusal"] {
            guard case .int(let status)? = r["status"], case .string(let body)? = r["body"] else { return nil }
            return (key, IdempotencyCache.Entry(keptRefusal: .init(key: key, bodyHash: bodyHash, version: first, minimal: minimal,
                                                                  createdAt: Int64(createdAt), status: status, body: Array(body.utf8))))
        }
        return (key, IdempotencyCache.Entry(bodyHash: bodyHash, firstVersion: first, lastVersion: last,
                                            minimal: minimal, createdAt: Int64(createdAt), response: nil, durable: true))
    }

    /// Session metadata: never the token, only its SHA-256; and the starting state when the
    /// session was created from a given one (it is not the kind's initial state, so replay needs it).
    /// An imported session's record also holds the import (`ImportedBase`): `state` is then the
    /// state at its `baseVersion`, and the record alone rebuilds the session as exported.
    static func meta(id: String, kind: String, createdAt: Int64, tokenHash: [UInt8], state: [UInt8]?, forkedFrom: ForkOrigin? = nil,
                     ttlSeconds: Int = 0, imported: ImportedBase.Encoded? = nil) -> [UInt8] {
        var out = Array(#"{"id":"\#(id)","kind":"\#(kind)","createdAt":\#(createdAt),"tokenSHA256":"\#(Secrets.hex(tokenHash))""#.utf8)
        if let forkedFrom { out += Array(#","forkedFrom":"#.utf8) + forkedFrom.json.encoded() }
        if ttlSeconds > 0 { out += Array(#","ttlSeconds":\#(ttlSeconds)"#.utf8) }
        if let imported {
            out += Array(#","import":{"baseVersion":\#(imported.baseVersion),"version":\#(imported.version),"actions":"#.utf8)
            out += imported.actions
            out += Array(#","idempotency":"#.utf8)
            out += imported.idempotency
            out.append(UInt8(ascii: "}"))
        }
        if let state { out += Array(#","state":"#.utf8) + state }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// What a metadata record holds.
    struct Meta {
        let id: String
        let kind: String
        let createdAt: Int64
        let tokenHash: [UInt8]
        let state: JSONValue?
        let forkedFrom: ForkOrigin?
        /// 0: the session never expires.
        let ttlSeconds: Int
        let imported: ImportedBase?
    }

    static func decodeMeta(_ bytes: [UInt8]) throws -> Meta {
        guard case .object(let o) = try JSONReader.parse(bytes, maxDepth: 10_000), case .string(let id)? = o["id"], case .string(let kind)? = o["kind"],
              case .int(let createdAt)? = o["createdAt"], case .string(let hash)? = o["tokenSHA256"] else {
            throw RecordCoding.DecodeError(description: "metadata is not session metadata")
        }
        var imported: ImportedBase?
        if let value = o["import"] {
            guard case .object(let i) = value, case .int(let base)? = i["baseVersion"], case .int(let version)? = i["version"],
                  case .array(let actions)? = i["actions"], case .array(let keys)? = i["idempotency"] else {
                throw RecordCoding.DecodeError(description: "metadata holds an import it cannot read")
            }
            var records: [ActionRecord] = []
            records.reserveCapacity(actions.count)
            for action in actions { records.append(try ActionRecord(record: action)) }
            imported = ImportedBase(baseVersion: base, version: version, actions: records,
                                    idempotency: keys.compactMap(idempotencyEntry))
        }
        return Meta(id: id, kind: kind, createdAt: Int64(createdAt), tokenHash: hexBytes(hash), state: o["state"],
                    forkedFrom: ForkOrigin(o["forkedFrom"]), ttlSeconds: { if case .int(let t)? = o["ttlSeconds"], t > 0 { t } else { 0 } }(),
                    imported: imported)
    }

    static func hexBytes(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            let nibble: UInt8
            switch c {
            case 0x30...0x39: nibble = c - 0x30
            case 0x61...0x66: nibble = c - 0x61 + 10
            default: return []
            }
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return out
    }
}
