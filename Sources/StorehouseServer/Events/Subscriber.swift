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
    /// The last snapshot sent: its size, allowed on top of the bound, and where it ends in the
    /// stream, until the socket has accepted it (then nil). The bound is for changes falling
    /// behind; a state larger than it would otherwise reset a subscriber that keeps up.
    var snapshotInFlight: (bytes: Int, end: Int)?
    /// A snapshot of a head that was not durable yet when it was taken: it goes out with the
    /// publication that makes its version durable, and changes are held back until then.
    var heldSnapshot: (version: Int, frame: SharedChunk)?

    init(stream: HTTPStream, lastVersion: Int, lastWrite: Int64) {
        self.stream = stream
        self.lastVersion = lastVersion
        self.lastWrite = lastWrite
    }

    /// Sends a snapshot (in place of whatever is queued, when `replacingQueue`), from which
    /// changes go on, and notes where it ends in the stream.
    func send(_ snapshot: (version: Int, frame: SharedChunk), replacingQueue: Bool = false) {
        if replacingQueue { stream.replacePending(with: snapshot.frame) } else { _ = stream.write(snapshot.frame) }
        snapshotInFlight = (snapshot.frame.bytes.count, stream.progress.written)
        lastVersion = snapshot.version
    }

    /// The subscriber bound, plus the snapshot still on its way, if any.
    func bound(_ subscriberBufferBytes: Int) -> Int {
        guard let snapshot = snapshotInFlight else { return subscriberBufferBytes }
        if stream.progress.accepted >= snapshot.end {
            snapshotInFlight = nil
            return subscriberBufferBytes
        }
        return subscriberBufferBytes + snapshot.bytes
    }
}
