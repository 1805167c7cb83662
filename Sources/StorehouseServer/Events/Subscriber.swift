import HTTPEngine

/// One open `GET /sessions/{id}/events` stream.
final class Subscriber: @unchecked Sendable {  // `lastVersion` and `lastWrite` are guarded by the owning session's lock
    let stream: HTTPStream
    /// The newest version this subscriber has been sent (by change or snapshot).
    var lastVersion: Int
    /// When bytes last went out, for the keep-alive comment.
    var lastWrite: Int64

    init(stream: HTTPStream, lastVersion: Int, lastWrite: Int64) {
        self.stream = stream
        self.lastVersion = lastVersion
        self.lastWrite = lastWrite
    }
}
