import SessionCore
import StoreCore

/// The bytes of a session snapshot in the journal and of its metadata record.
///
/// A snapshot carries the idempotency window with the state, so keys survive a
/// restart even after the records that set them are compacted away; a kept refusal
/// carries its answer, which history cannot render again.
enum SnapshotCoding {
    static func encode(version: Int, state: [UInt8], updatedAt: Int64, idempotency: IdempotencyCache) -> [UInt8] {
        var out: [UInt8] = []
        out += Array(#"{"version":\#(version),"updatedAt":\#(updatedAt),"idempotency":["#.utf8)
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
        out += Array(#"],"state":"#.utf8)
        out += state
        out.append(UInt8(ascii: "}"))
        return out
    }

    struct Decoded {
        var version: Int
        var updatedAt: Int64
        var state: JSONValue
        var idempotency: [(key: String, entry: IdempotencyCache.Entry)]
    }

    static func decode(_ bytes: [UInt8]) throws -> Decoded {
        guard case .object(let o) = try JSONReader.parse(bytes, maxDepth: 10_000),
              case .int(let version)? = o["version"], case .int(let updatedAt)? = o["updatedAt"],
              let state = o["state"] else { throw RecordCoding.DecodeError(description: "snapshot is not a session snapshot") }
        var entries: [(String, IdempotencyCache.Entry)] = []
        if case .array(let list)? = o["idempotency"] {
            for item in list {
                guard case .object(let e) = item, case .string(let key)? = e["key"], case .string(let hash)? = e["hash"],
                      case .int(let first)? = e["first"], case .int(let last)? = e["last"],
                      case .bool(let minimal)? = e["minimal"], case .int(let createdAt)? = e["createdAt"] else { continue }
                if case .object(let r)? = e["refusal"] {
                    guard case .int(let status)? = r["status"], case .string(let body)? = r["body"] else { continue }
                    entries.append((key, IdempotencyCache.Entry(keptRefusal: .init(key: key, bodyHash: hexBytes(hash), version: first, minimal: minimal,
                                                                                  createdAt: Int64(createdAt), status: status, body: Array(body.utf8)))))
                    continue
                }
                entries.append((key, IdempotencyCache.Entry(bodyHash: hexBytes(hash), firstVersion: first, lastVersion: last,
                                                            minimal: minimal, createdAt: Int64(createdAt), response: nil, durable: true)))
            }
        }
        return Decoded(version: version, updatedAt: Int64(updatedAt), state: state, idempotency: entries)
    }

    /// Session metadata: never the token, only its SHA-256; and the starting state when the
    /// session was created from a given one (it is not the kind's initial state, so replay needs it).
    static func meta(id: String, kind: String, createdAt: Int64, tokenHash: [UInt8], state: [UInt8]?) -> [UInt8] {
        var out = Array(#"{"id":"\#(id)","kind":"\#(kind)","createdAt":\#(createdAt),"tokenSHA256":"\#(Secrets.hex(tokenHash))""#.utf8)
        if let state { out += Array(#","state":"#.utf8) + state }
        out.append(UInt8(ascii: "}"))
        return out
    }

    static func decodeMeta(_ bytes: [UInt8]) throws -> (id: String, kind: String, createdAt: Int64, tokenHash: [UInt8], state: JSONValue?) {
        guard case .object(let o) = try JSONReader.parse(bytes, maxDepth: 10_000), case .string(let id)? = o["id"], case .string(let kind)? = o["kind"],
              case .int(let createdAt)? = o["createdAt"], case .string(let hash)? = o["tokenSHA256"] else {
            throw RecordCoding.DecodeError(description: "metadata is not session metadata")
        }
        return (id, kind, Int64(createdAt), hexBytes(hash), o["state"])
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
