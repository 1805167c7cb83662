/// Writes one chunk to many streams and wakes each stream's loop once per batch of streams,
/// not once per stream.
///
/// A stream that gets bytes while idle needs its loop to come and send them. Done per stream, a
/// fan-out to 10,000 subscribers queues 10,000 loop commands through the loops' inboxes; here the
/// streams are handed over in batches, so a loop starts sending after the first batch while the
/// rest are still being queued. Whatever is still collected is handed over at `deinit`, so no
/// stream is left without its wake-up.
///
/// ```swift
/// var fanOut = StreamFanOut()
/// for stream in streams { _ = fanOut.write(chunk, to: stream, ifPendingAtMost: 64 << 10) }
/// // the last batches go to their loops when `fanOut` goes out of scope
/// ```
public struct StreamFanOut: ~Copyable {
    /// Enough to amortize a loop's inbox lock and wake-up; small enough that a loop starts early.
    static let batchSize = 128

    private var batches: [(loop: EventLoop, streams: [HTTPStream])] = []

    public init() {}

    /// `HTTPStream.write(_:ifPendingAtMost:)`, with the stream's wake-up collected into a batch.
    public mutating func write(_ chunk: SharedChunk, to stream: HTTPStream, ifPendingAtMost bound: Int) -> HTTPStream.BoundedWrite {
        let (result, needsPull) = stream.enqueueDeferringWakeup(chunk, bound: bound)
        if needsPull { collect(stream) }
        return result
    }

    private mutating func collect(_ stream: HTTPStream) {
        // Linear: one entry per I/O thread.
        let index = batches.firstIndex { $0.loop === stream.loop } ?? {
            batches.append((stream.loop, []))
            return batches.count - 1
        }()
        batches[index].streams.append(stream)
        if batches[index].streams.count >= Self.batchSize {
            let full = batches[index].streams
            batches[index].streams = []
            stream.loop.enqueue(.streamsReady(full))
        }
    }

    deinit {
        for batch in batches where !batch.streams.isEmpty { batch.loop.enqueue(.streamsReady(batch.streams)) }
    }
}
