/// Bytes waiting for the socket, as shared segments (a stream's chunk is queued, not copied).
struct OutboundQueue {
    private(set) var segments: [[UInt8]] = []
    /// How much of `segments[0]` is already on the socket.
    private(set) var offset = 0
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    @inline(__always) mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        segments.append(bytes)
        byteCount += bytes.count
    }

    /// Empties a queue the socket took whole that held one segment, and hands that segment back
    /// (moved out, not copied: its storage stays uniquely held, so it can be written over again).
    /// The queue keeps its small buffer, as `consume` does when everything went.
    mutating func takeSentSingle() -> [UInt8] {
        let only = segments.removeLast()
        if segments.capacity > 4 { segments = [] }
        byteCount = 0
        offset = 0
        return only
    }

    /// Drops `n` sent bytes from the front.
    mutating func consume(_ n: Int) {
        byteCount -= n
        if byteCount == 0 {
            // All of it went (nearly every answer): no walk and no shifting. A queue that held a
            // few segments keeps its small buffer for the next answer (one allocation less per
            // request); a long one lets it go, so an idle connection stays small.
            segments.removeAll(keepingCapacity: segments.capacity <= 4)
            offset = 0
            return
        }
        var left = n
        // The sent segments go in one removal: one at a time, each shifting the rest, draining a
        // long queue took time quadratic in its length (seconds for 8 MB of small answers).
        var sent = 0
        while left > 0, sent < segments.count {
            let available = segments[sent].count - offset
            if left >= available {
                left -= available
                sent += 1
                offset = 0
            } else {
                offset += left
                left = 0
            }
        }
        segments.removeFirst(sent)
        // An idle connection keeps no buffer (10k idle connections must stay small).
        if segments.isEmpty { segments = [] }
    }

    mutating func removeAll() {
        segments = []
        offset = 0
        byteCount = 0
    }
}
