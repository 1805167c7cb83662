import HTTPEngine

/// One open `GET /sessions/{id}/events` stream.
final class Subscriber: @unchecked Sendable {  // every `var` is guarded by the owning session's lock
    let stream: HTTPStream
    /// The newest version this subscriber has been sent (by change or snapshot).
    var lastVersion: Int
    /// When bytes last went out, for the keep-alive comment.
    var lastWrite: Int64
    /// Reset by the slow-subscriber rule: changes skip it until its stream drains and it is sent
    /// a snapshot of the head as it is then.
    var awaitingSnapshot = false
    /// The size of the last snapshot sent, allowed on top of the bound until the stream's unsent
    /// bytes are back within it: the bound is for changes falling behind, and a state larger than
    /// it would otherwise reset a subscriber that keeps up at every change.
    var snapshotAllowance = 0

    init(stream: HTTPStream, lastVersion: Int, lastWrite: Int64) {
        self.stream = stream
        self.lastVersion = lastVersion
        self.lastWrite = lastWrite
    }
}
