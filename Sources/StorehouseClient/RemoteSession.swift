import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreCore

/// One session on a server, typed by its kind: send actions, read the state, follow its events.
///
/// ```swift
/// let session = try await client.createSession(notes)
/// _ = try await session.send(.add("milk"))
/// _ = try await session.send([.add("eggs"), .add("flour")])          // one batch, all or none
/// let now = try await session.state()                               // Versioned<NotesState>
/// _ = try await session.send(.add("tea"), ifMatch: now.version)      // 412 if someone was faster
/// ```
public final class RemoteSession<State: StoreState, Action: StoreAction>: Sendable {
    /// The server it lives on.
    public let client: StorehouseClient
    /// Its kind: the State and Action types answers decode to, and the reducer optimistic sends run.
    public let kind: Kind<State, Action>
    /// The session's id (`/sessions/{id}`).
    public let id: String
    /// The bearer token: keep it with `id` to open the session again later.
    public let token: String

    init(client: StorehouseClient, kind: Kind<State, Action>, id: String, token: String) {
        self.client = client
        self.kind = kind
        self.id = id
        self.token = token
    }

    private var path: String { "/sessions/\(id)" }

    /// Sends one action; the answer is the state after it.
    ///
    /// `ifMatch`: applied only if the session is at that version (else 412 `version-mismatch`).
    /// `idempotencyKey`: a fresh one unless given; with a key, a send that got no answer (a
    /// dropped connection, a restarting server) is sent again with the same key, and the server
    /// answers a repeat it already applied with its first answer instead of applying it twice.
    /// Pass `nil` for no key and no retry.
    public func send(_ action: Action, ifMatch: Int? = nil,
                     idempotencyKey: String? = UUID().uuidString) async throws(StorehouseError) -> Versioned<State> {
        try decode(try await post(Self.encode(action), ifMatch: ifMatch, idempotencyKey: idempotencyKey))
    }

    /// Sends a batch: applied in order as one, all or none, one version per action.
    public func send(_ actions: [Action], ifMatch: Int? = nil,
                     idempotencyKey: String? = UUID().uuidString) async throws(StorehouseError) -> Versioned<State> {
        try decode(try await post(.array(actions.map(Self.encode)), ifMatch: ifMatch, idempotencyKey: idempotencyKey))
    }

    /// Sends a batch with `Prefer: return=minimal`: the answer carries the new version and the
    /// RFC 6902 patch from the state before to the state after, not the whole state. Use it on
    /// big states, where encoding and sending the whole state costs more than the action.
    ///
    /// ```swift
    /// let applied = try await session.sendMinimal([.add("milk")])
    /// print(applied.version, applied.state)   // 7 [{"op":"add","path":"/notes/-","value":"milk"}]
    /// ```
    public func sendMinimal(_ actions: [Action], ifMatch: Int? = nil,
                            idempotencyKey: String? = UUID().uuidString) async throws(StorehouseError) -> Versioned<JSONValue> {
        let answer = try await post(.array(actions.map(Self.encode)), ifMatch: ifMatch, idempotencyKey: idempotencyKey,
                                    prefer: "return=minimal")
        guard case .int(let version)? = answer.json["version"], let patch = answer.json["patch"] else {
            throw .invalidAnswer("no version and patch in \(answer.text.prefix(200))")
        }
        return Versioned(version: version, state: patch)
    }

    /// `GET /sessions/{id}/state`.
    public func state() async throws(StorehouseError) -> Versioned<State> {
        try decode(try await client.request("GET", path + "/state", token: token, retry: true))
    }

    /// `DELETE /sessions/{id}`: the session, its files and its streams end.
    public func delete() async throws(StorehouseError) {
        _ = try await client.request("DELETE", path, token: token, retry: false)
    }

    /// The raw event stream (`GET /sessions/{id}/events`), from a snapshot, or after
    /// `lastEventID` (`Last-Event-ID`). It ends when the server closes it; ``RemoteStore`` is the
    /// typed mirror that reconnects.
    public func events(lastEventID: Int? = nil) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        var request = URLRequest(url: client.url(path + "/events"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let lastEventID { request.setValue(String(lastEventID), forHTTPHeaderField: "Last-Event-ID") }
        return EventStreamConnection.open(request, configuration: client.urlSession.configuration)
    }

    private func post(_ body: JSONValue, ifMatch: Int?, idempotencyKey: String?,
                      prefer: String? = nil) async throws(StorehouseError) -> StorehouseClient.Answer {
        var headers: [String: String] = [:]
        if let ifMatch { headers["If-Match"] = "\"\(ifMatch)\"" }
        if let idempotencyKey { headers["Idempotency-Key"] = idempotencyKey }
        if let prefer { headers["Prefer"] = prefer }
        return try await client.request("POST", path + "/actions", token: token, headers: headers, body: body.encoded(),
                                        retry: idempotencyKey != nil)
    }

    private func decode(_ answer: StorehouseClient.Answer) throws(StorehouseError) -> Versioned<State> {
        let json = answer.json
        guard case .int(let version)? = json["version"], let stateJSON = json["state"] else {
            throw .invalidAnswer("no version and state in \(answer.text.prefix(200))")
        }
        do {
            return Versioned(version: version, state: try State(json: stateJSON, path: ""))
        } catch {
            throw .invalidAnswer("the state does not decode: \(error)")
        }
    }

    static func encode(_ action: Action) -> JSONValue {
        var object: [String: JSONValue] = ["type": .string(action.type)]
        if let payload = action.payload { object["payload"] = payload }
        return .object(object)
    }
}
