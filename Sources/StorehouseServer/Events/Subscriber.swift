import HTTPEngine

/// One open `GET /sessions/{id}/events` stream, as the host holds it: the stream and what its
/// bytes need. What it was sent and when is the machine's (`SessionCore.Subscribers`).
final class Subscriber: @unchecked Sendable {  // every `var` is guarded by the owning session's lock
    let stream: HTTPStream
    /// The last snapshot sent: its size, allowed on top of the bound, and where it ends in the
    /// stream, until the socket has accepted it (then nil). The bound is for changes falling
    /// behind; a state larger than it would otherwise reset a subscriber that keeps up.
    var snapshotInFlight: (bytes: Int, end: Int)?
    /// The snapshot the machine holds for it (`.holdSnapshot`), until its version is durable.
    var heldSnapshot: SharedChunk?

    init(stream: HTTPStream) {
        self.stream = stream
    }

    /// Sends a snapshot (in place of whatever is queued, when `replacingQueue`), from which
    /// changes go on, and notes where it ends in the stream.
    func send(_ snapshot: SharedChunk, replacingQueue: Bool = false) {
        if replacingQueue { stream.replacePending(with: snapshot) } else { _ = stream.write(snapshot) }
        snapshotInFlight = (snapshot.bytes.count, stream.progress.written)
    }

    /// The subscriber bound, plus the snapshot still on its way, if any. With nothing queued
    /// after that snapshot, no bound: the next change is not behind, whatever its size (the
    /// stream's own rule when nothing is queued). Else a change larger than the bound, written
    /// before the loop took a fresh stream's `retry` and first snapshot, would reset a
    /// subscriber that never fell behind and drop those two.
    func bound(_ subscriberBufferBytes: Int) -> Int {
        guard let snapshot = snapshotInFlight else { return subscriberBufferBytes }
        let progress = stream.progress
        if progress.accepted >= snapshot.end {
            snapshotInFlight = nil
            return subscriberBufferBytes
        }
        if progress.written == snapshot.end { return .max }
        return subscriberBufferBytes + snapshot.bytes
    }
}
