/// Who sent an action: a client over HTTP, or an effect feeding its result back.
public enum ActionSource: String, Sendable, Hashable {
    case client, effect
}

/// One logged action: a Flux Standard Action plus the stamp the server gave it.
/// Encodes to `{"type","payload"?,"meta"?,"at","source"}` (`at` as ISO-8601) and back.
///
///     let r = ActionRecord(type: "tasks/add", payload: .object(["title": .string("x")]), at: 0, source: .client)
public struct ActionRecord: Sendable, Hashable {
    public var type: String
    public var payload: JSONValue?
    public var meta: JSONValue?
    /// Milliseconds since the Unix epoch; the reducer sees it, so replays rebuild identical state.
    public var at: Int64
    public var source: ActionSource

    public init(type: String, payload: JSONValue? = nil, meta: JSONValue? = nil, at: Int64, source: ActionSource) {
        self.type = type
        self.payload = payload
        self.meta = meta
        self.at = at
        self.source = source
    }

    /// Reads a client's FSA object (`type`, optional `payload` and `meta`; other members are
    /// ignored) and stamps it. Throws `.invalidAction` when it is not an object with a string `type`.
    public init(fsa json: JSONValue, at: Int64, source: ActionSource) throws(ActionError) {
        guard case .object(let o) = json else {
            throw ActionError.invalidAction(detail: "an action is a JSON object, got \(json.typeName)")
        }
        guard let t = o["type"] else { throw ActionError.invalidAction(detail: "the action has no \"type\"") }
        guard case .string(let type) = t else {
            throw ActionError.invalidAction(detail: "\"type\" must be a string, got \(t.typeName)")
        }
        self.init(type: type, payload: o["payload"], meta: o["meta"], at: at, source: source)
    }

    /// Reads a record written by `writeJSON` (journal, log). `at` may be ISO-8601 or integer millis.
    public init(record json: JSONValue) throws(StateDecodingError) {
        let type: String = try json.decodeMember("type", at: "")
        let atValue: JSONValue = try json.decodeMember("at", at: "")
        let at: Int64
        switch atValue {
        case .int(let i): at = Int64(i)
        case .string(let s):
            guard let m = Timestamp.millis(iso8601: s) else { throw StateDecodingError(path: "/at", message: "not an ISO-8601 timestamp") }
            at = m
        default: throw StateDecodingError(path: "/at", message: "expected a timestamp, got \(atValue.typeName)")
        }
        let sourceName: String = try json.decodeMember("source", at: "")
        guard let source = ActionSource(rawValue: sourceName) else {
            throw StateDecodingError(path: "/source", message: "expected \"client\" or \"effect\"")
        }
        self.init(type: type, payload: json["payload"], meta: json["meta"], at: at, source: source)
    }
}

extension ActionRecord: JSONEncodable {
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        writeMembers(to: &w)
        w.endObject()
    }

    /// The members without braces, so a caller can prepend its own (e.g. `"version"` in the log).
    public func writeMembers(to w: inout JSONWriter) {
        w.key("type"); w.write(type)
        if let payload { w.key("payload"); w.write(payload) }
        if let meta { w.key("meta"); w.write(meta) }
        w.key("at")
        w.separate()
        w.bytes.append(UInt8(ascii: "\""))
        Timestamp.append(millis: at, to: &w.bytes)
        w.bytes.append(UInt8(ascii: "\""))
        w.needsComma = true
        w.key("source"); w.write(source.rawValue)
    }
}

/// A one-off message a store sends to its clients (SSE `output`), not part of the state.
public struct StoreOutput: Sendable, Hashable {
    public var type: String
    public var payload: JSONValue?
    public init(type: String, payload: JSONValue? = nil) { self.type = type; self.payload = payload }
}

extension StoreOutput: JSONEncodable {
    /// `{"type": ..., "payload"?: ...}`
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("type"); w.write(type)
        if let payload { w.key("payload"); w.write(payload) }
        w.endObject()
    }
}
