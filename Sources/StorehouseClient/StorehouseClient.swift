import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreCore

/// A Storehouse server as seen from Swift: creates and opens sessions of a kind whose State and
/// Action types the app shares with the server, so every answer is typed.
///
/// ```swift
/// let client = StorehouseClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
/// let notes = Kind(name: "notes", reducer: notesReducer)
/// let session = try await client.createSession(notes)
/// let answer = try await session.send(.add("milk"))   // Versioned<NotesState>
/// print(answer.version, answer.state.notes)            // 1 ["milk"]
/// ```
public struct StorehouseClient: Sendable {
    /// Where the server answers, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// What requests go through; each event stream gets its own session with this one's configuration.
    public let urlSession: URLSession
    /// How often a request that may be repeated safely (a read, or a send with an
    /// `Idempotency-Key`) is tried when there is no answer or a 503.
    public var maxAttempts: Int
    /// The wait between two attempts when the server names none (`Retry-After`).
    public var retryDelay: Duration
    /// Told of each failed attempt that is about to be tried again (the attempt's number and
    /// why it failed), to log it: `client.onRetry = { attempt, error in print(attempt, error) }`.
    public var onRetry: (@Sendable (Int, StorehouseError) -> Void)?

    /// A client of the server at `baseURL`; nothing is sent until a session is created or used.
    public init(baseURL: URL, urlSession: URLSession = .shared, maxAttempts: Int = 5, retryDelay: Duration = .milliseconds(250),
                onRetry: (@Sendable (Int, StorehouseError) -> Void)? = nil) {
        self.baseURL = baseURL
        self.urlSession = urlSession
        self.maxAttempts = max(1, maxAttempts)
        self.retryDelay = retryDelay
        self.onRetry = onRetry
    }

    /// `POST /sessions`: a new session of `kind`, from its initial state or from `state`.
    public func createSession<State, Action>(_ kind: Kind<State, Action>, state: State? = nil) async throws(StorehouseError) -> RemoteSession<State, Action> {
        var body: [String: JSONValue] = ["kind": .string(kind.name)]
        if let state { body["state"] = state.jsonValue() }
        let answer = try await request("POST", "/sessions", body: JSONValue.object(body).encoded(), retry: false)
        guard case .string(let id)? = answer.json["id"], case .string(let token)? = answer.json["token"] else {
            throw .invalidAnswer("no id and token in \(answer.text)")
        }
        return RemoteSession(client: self, kind: kind, id: id, token: token)
    }

    /// A session that exists already (its id and token kept from ``createSession(_:state:)``);
    /// nothing is sent until it is used.
    public func openSession<State, Action>(_ kind: Kind<State, Action>, id: String, token: String) -> RemoteSession<State, Action> {
        RemoteSession(client: self, kind: kind, id: id, token: token)
    }

    /// One exchange. `retry`: the request may be sent again when no answer came or the answer
    /// was 503 (a server starting, draining or full), up to ``maxAttempts`` times.
    func request(_ method: String, _ path: String, token: String? = nil, headers: [String: String] = [:],
                 body: [UInt8]? = nil, retry: Bool) async throws(StorehouseError) -> Answer {
        var attempt = 1
        while true {
            let answer: Answer
            do {
                answer = try await exchange(method, path, token: token, headers: headers, body: body)
            } catch {
                guard retry, attempt < maxAttempts, case .transport = error else { throw error }
                onRetry?(attempt, error)
                try? await Task.sleep(for: retryDelay)
                attempt += 1
                continue
            }
            if (200..<300).contains(answer.status) || answer.status == 304 { return answer }
            let problem = ServerProblem(status: answer.status, body: answer.body, retryAfter: answer.header("Retry-After").flatMap { Int($0) })
            guard retry, answer.status == 503, attempt < maxAttempts else { throw .problem(problem) }
            onRetry?(attempt, .problem(problem))
            try? await Task.sleep(for: problem.retryAfter.map { .seconds($0) } ?? retryDelay)
            attempt += 1
        }
    }

    private func exchange(_ method: String, _ path: String, token: String?, headers: [String: String],
                          body: [UInt8]?) async throws(StorehouseError) -> Answer {
        var request = URLRequest(url: url(path))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await urlSession.data(for: request)
        } catch {
            throw .transport(String(describing: error))
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidAnswer("not an HTTP answer") }
        return Answer(status: http.statusCode, headers: http.allHeaderFields, body: Array(data))
    }

    /// `baseURL` and a path that may carry a query.
    func url(_ path: String) -> URL {
        let base = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        return URL(string: base + path) ?? baseURL
    }

    /// An answer's status, headers and body.
    struct Answer: @unchecked Sendable {  // `headers` is Foundation's [AnyHashable: Any], read-only after init
        let status: Int
        let headers: [AnyHashable: Any]
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSONValue { (try? JSONReader.parse(body)) ?? .null }

        func header(_ name: String) -> String? {
            for (key, value) in headers where (key.base as? String)?.lowercased() == name.lowercased() { return value as? String }
            return nil
        }
    }
}
