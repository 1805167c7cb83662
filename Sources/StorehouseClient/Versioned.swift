/// A state and the session version it is at.
///
/// ```swift
/// let answer = try await session.send(.add("milk"))
/// print(answer.version, answer.state.notes)
/// ```
public struct Versioned<State: Sendable>: Sendable {
    /// The session's version after the action that made `state`.
    public let version: Int
    public let state: State
    /// `state` at `version`.
    public init(version: Int, state: State) {
        self.version = version
        self.state = state
    }
}

extension Versioned: Equatable where State: Equatable {}
