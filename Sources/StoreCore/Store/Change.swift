/// What one applied action changed: the version it produced, the stamped action, the RFC 6902
/// patch from the state before to the state after (encoded), and the outputs it emitted.
public struct Change: Sendable {
    public var version: Int
    public var action: ActionRecord
    /// An encoded JSON array of RFC 6902 operations; `[]` when the state did not change.
    public var patch: [UInt8]
    public var outputs: [StoreOutput]

    public init(version: Int, action: ActionRecord, patch: [UInt8], outputs: [StoreOutput]) {
        self.version = version
        self.action = action
        self.patch = patch
        self.outputs = outputs
    }
}

/// An effect the store produced, ready to run. The server starts it only once the action
/// that produced it is durable, and feeds each action it sends back through `apply` with
/// source `.effect`.
public struct PendingEffect: Sendable {
    /// The name its kind gave the request (`Effect.run(id:)`), if any.
    public let id: String?
    let body: @Sendable (@escaping @Sendable (_ type: String, _ payload: JSONValue?) -> Void) async -> Void

    public init(id: String? = nil, _ body: @escaping @Sendable (@escaping @Sendable (_ type: String, _ payload: JSONValue?) -> Void) async -> Void) {
        self.id = id
        self.body = body
    }

    /// Runs the work to its end; `send` is called once per action, in order.
    public func run(send: @escaping @Sendable (_ type: String, _ payload: JSONValue?) -> Void) async {
        await body(send)
    }
}

extension Change: JSONEncodable {
    /// `{"version": N, "action": {"type","payload"?,"meta"?,"at","source"}, "patch": [...]}`:
    /// the SSE `change` data of docs/API.md (the patch bytes are spliced, not re-encoded).
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("version"); w.write(version)
        w.key("action"); action.writeJSON(to: &w)
        w.key("patch"); w.writeRaw(patch)
        w.endObject()
    }
}
