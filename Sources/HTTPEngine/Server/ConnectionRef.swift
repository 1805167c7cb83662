/// Carries a connection through the loop's inbox; dereferenced only on the owning loop's thread,
/// except for `fd` and `handoff` by the thread the socket is lent to.
struct ConnectionRef: @unchecked Sendable {
    let connection: Connection
}
