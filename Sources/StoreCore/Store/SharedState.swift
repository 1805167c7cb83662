/// A store's state held as a value. Taking it from a store costs O(1) and it shares every
/// unchanged part with the store's state as that goes on changing (`EntityTable`s are
/// persistent, the other parts copy-on-write), so a session can keep the state at many versions
/// for the memory of what changed between them. It is immutable and `Sendable`: encode it when
/// bytes are needed, on any thread, while the store goes on.
///
///     let kept = store.sharedState()          // O(1)
///     _ = try store.apply(moreRecords)
///     kept.encode()                           // the state before `moreRecords`
public struct SharedState: Sendable {
    @usableFromInline let box: any SharedStateBox

    @inlinable
    public init<State: StoreState>(_ state: State) { box = TypedSharedState(state: state) }

    /// The state's JSON bytes, as the store it came from encoded them then.
    public func encode() -> [UInt8] { box.encode(capacity: 1024) }

    /// Appends the state's JSON bytes to `bytes`.
    public func encode(into bytes: inout [UInt8]) { box.encode(into: &bytes) }

    /// The bytes at an RFC 6901 pointer, as `AnyStore.encodedState(at:)` gives them.
    public func encodedValue(at pointer: JSONPointer) -> [UInt8]? { box.encodedValue(at: pointer.tokens[...]) }

    /// The state as a JSON value.
    public func jsonValue() -> JSONValue { box.jsonValue() }

    /// The typed state, when it is a `State`.
    @inlinable
    public func state<State: StoreState>(as type: State.Type) -> State? { (box as? TypedSharedState<State>)?.state }
}

/// What `SharedState` erases.
@usableFromInline
protocol SharedStateBox: Sendable {
    func encode(capacity: Int) -> [UInt8]
    func encode(into bytes: inout [UInt8])
    func encodedValue(at tokens: ArraySlice<String>) -> [UInt8]?
    func jsonValue() -> JSONValue
}

@usableFromInline
struct TypedSharedState<State: StoreState>: SharedStateBox {
    @usableFromInline let state: State

    @inlinable init(state: State) { self.state = state }

    @usableFromInline func encode(capacity: Int) -> [UInt8] { state.jsonBytes(capacity: capacity) }

    @usableFromInline func encode(into bytes: inout [UInt8]) {
        var w = JSONWriter(capacity: 0)
        swap(&w.bytes, &bytes)
        state.writeJSON(to: &w)
        swap(&w.bytes, &bytes)
    }

    @usableFromInline func encodedValue(at tokens: ArraySlice<String>) -> [UInt8]? { state.encodedValue(at: tokens) }

    @usableFromInline func jsonValue() -> JSONValue { state.jsonValue() }
}
