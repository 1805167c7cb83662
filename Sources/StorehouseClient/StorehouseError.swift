import StoreCore

/// Why a request to a Storehouse server failed.
///
/// ```swift
/// do { _ = try await session.send(.add("")) }
/// catch StorehouseError.problem(let problem) where problem.slug == "action-rejected" { print(problem.detail ?? "") }
/// ```
public enum StorehouseError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an RFC 9457 problem document (4xx or 5xx).
    case problem(ServerProblem)
    /// No answer: the connection could not be made or broke (the description says how).
    case transport(String)
    /// An answer that is not what the contract promises (a state that does not decode, say).
    case invalidAnswer(String)

    public var description: String {
        switch self {
        case .problem(let problem): "\(problem.status) \(problem.slug): \(problem.detail ?? problem.title)"
        case .transport(let reason): "no answer: \(reason)"
        case .invalidAnswer(let reason): "unexpected answer: \(reason)"
        }
    }

    /// The problem's status, nil when there was no answer.
    public var status: Int? { if case .problem(let problem) = self { problem.status } else { nil } }
}

/// An RFC 9457 problem document as the server sent it.
///
/// ```swift
/// problem.slug            // "version-mismatch"
/// problem["currentVersion"] // .int(7): the members a problem type adds
/// ```
public struct ServerProblem: Sendable, Equatable {
    /// The HTTP status.
    public let status: Int
    /// The `type` URI, e.g. `/problems/action-rejected`.
    public let type: String
    /// The problem type's short summary.
    public let title: String
    /// What went wrong with this request, when the server said.
    public let detail: String?
    /// The whole document, for the members a problem type adds (`validTypes`, `currentVersion`).
    public let document: JSONValue
    /// `Retry-After` in seconds, when the server sent one (503 answers).
    public let retryAfter: Int?

    /// The last segment of `type`: `action-rejected`, `unknown-action`, ….
    public var slug: String { String(type.split(separator: "/").last ?? Substring(type)) }

    /// A member of the document: `problem["validTypes"]`.
    public subscript(member: String) -> JSONValue? { document[member] }

    init(status: Int, body: [UInt8], retryAfter: Int?) {
        self.status = status
        self.retryAfter = retryAfter
        let parsed = (try? JSONReader.parse(body)) ?? .object([:])
        document = parsed
        func text(_ key: String) -> String? { if case .string(let s)? = parsed[key] { s } else { nil } }
        type = text("type") ?? "about:blank"
        title = text("title") ?? "HTTP \(status)"
        detail = text("detail") ?? (parsed == .object([:]) ? String(decoding: body.prefix(200), as: UTF8.self) : nil)
    }
}
