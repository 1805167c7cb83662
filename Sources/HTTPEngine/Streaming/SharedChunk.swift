/// Bytes to send on many streams, framed once: a fan-out builds one per event and every stream
/// queues the same array (one segment; no per-stream framing, copy or allocation).
///
/// ```swift
/// let event = SharedChunk(Array("data: {\"version\":7}\n\n".utf8))
/// for stream in subscribers { _ = stream.write(event) }
/// ```
public struct SharedChunk: Sendable {
    /// The bytes as given (what an HTTP/1.0 close-delimited stream sends).
    public let bytes: [UInt8]
    /// The same bytes as one HTTP/1.1 chunk (RFC 9112 §7.1: chunk-size CRLF chunk-data CRLF).
    let framed: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        framed = SharedChunk.frame(bytes)
    }

    static func frame(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 12)
        ResponseEncoder.appendHex(bytes.count, to: &out)
        out.append(0x0D); out.append(0x0A)
        out.append(contentsOf: bytes)
        out.append(0x0D); out.append(0x0A)
        return out
    }
}
