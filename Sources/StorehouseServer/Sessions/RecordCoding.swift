import StoreCore

/// The JSON forms of a logged action: in the action log, in `change` events and in journal records.
///
/// Keys are written in one fixed order (`type`, `payload`, `meta`, `at`, `source`),
/// so the same action is always the same bytes.
enum RecordCoding {
    /// `{"type":…,"payload":…,"meta":…,"at":"…","source":"…"}`; payload and meta omitted when absent.
    static func action(_ record: ActionRecord, version: Int? = nil) -> [UInt8] {
        var w = JSONWriter()
        w.bytes.append(UInt8(ascii: "{"))
        if let version {
            w.bytes.append(contentsOf: #""version":"#.utf8)
            w.bytes.append(contentsOf: String(version).utf8)
            w.bytes.append(UInt8(ascii: ","))
        }
        w.bytes.append(contentsOf: #""type":"#.utf8)
        w.bytes += JSONValue.string(record.type).encoded()
        if let payload = record.payload {
            w.bytes.append(contentsOf: #","payload":"#.utf8)
            w.bytes += payload.encoded()
        }
        if let meta = record.meta {
            w.bytes.append(contentsOf: #","meta":"#.utf8)
            w.bytes += meta.encoded()
        }
        w.bytes.append(contentsOf: #","at":""#.utf8)
        w.bytes.append(contentsOf: Timestamp.iso8601(millis: record.at).utf8)
        w.bytes.append(contentsOf: #"","source":""#.utf8)
        w.bytes.append(contentsOf: record.source.rawValue.utf8)
        w.bytes.append(contentsOf: #""}"#.utf8)
        return w.bytes
    }

    /// What an idempotent request leaves in the journal so the key survives a restart.
    struct IdempotencyMark: Sendable {
        let key: String
        let bodyHash: [UInt8]
        let firstVersion: Int
        let minimal: Bool
    }

    /// A journal record: the action, and on a request's last action its idempotency mark.
    static func journalRecord(_ record: ActionRecord, mark: IdempotencyMark?) -> [UInt8] {
        var bytes = Array(#"{"action":"#.utf8)
        bytes += action(record)
        if let mark {
            var w = JSONWriter()
            w.bytes.append(contentsOf: #","idempotency":{"key":"#.utf8)
            w.bytes += JSONValue.string(mark.key).encoded()
            w.bytes.append(contentsOf: #","hash":"#.utf8)
            w.bytes += JSONValue.string(Secrets.hex(mark.bodyHash)).encoded()
            w.bytes.append(contentsOf: #","first":"#.utf8)
            w.bytes.append(contentsOf: String(mark.firstVersion).utf8)
            w.bytes.append(contentsOf: #","minimal":"#.utf8)
            w.bytes.append(contentsOf: (mark.minimal ? "true" : "false").utf8)
            w.bytes.append(UInt8(ascii: "}"))
            bytes += w.bytes
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    struct DecodeError: Error, CustomStringConvertible { let description: String }

    /// Reads a journal record back.
    static func decodeJournalRecord(_ bytes: [UInt8]) throws -> (ActionRecord, IdempotencyMark?) {
        guard case .object(let object) = try JSONReader.parse(bytes),
              let action = object["action"] else { throw DecodeError(description: "record has no action") }
        let record = try decodeAction(action)
        var mark: IdempotencyMark?
        if case .object(let idem)? = object["idempotency"],
           case .string(let key)? = idem["key"], case .string(let hash)? = idem["hash"],
           case .int(let first)? = idem["first"], case .bool(let minimal)? = idem["minimal"] {
            mark = IdempotencyMark(key: key, bodyHash: SnapshotCoding.hexBytes(hash), firstVersion: first, minimal: minimal)
        }
        return (record, mark)
    }

    static func decodeAction(_ value: JSONValue) throws -> ActionRecord {
        guard case .object(let o) = value, case .string(let type)? = o["type"],
              case .string(let at)? = o["at"], let millis = Timestamp.millis(iso8601: at),
              case .string(let sourceText)? = o["source"], let source = ActionSource(rawValue: sourceText)
        else { throw DecodeError(description: "record is not a logged action") }
        return ActionRecord(type: type, payload: o["payload"], meta: o["meta"], at: millis, source: source)
    }
}
