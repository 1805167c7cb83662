import HTTPEngine
import StoreCore

/// The bytes of server-sent events (WHATWG HTML §9.2): one frame per event,
/// each ended by a blank line. A frame is built once and shared by every subscriber.
enum EventFrames {
    static let retry = Array("retry: 2000\n\n".utf8)
    static let keepAlive = Array(": keep-alive\n\n".utf8)
    static let keepAliveChunk = SharedChunk(keepAlive)

    /// `snapshot` with `answer`, the head's `{"version":N,"state":…}` (the GET answer's body).
    static func snapshot(version: Int, answer: [UInt8]) -> [UInt8] {
        var out = Array("event: snapshot\nid: \(version)\ndata: ".utf8)
        out.reserveCapacity(out.count + answer.count + 2)
        out += answer
        out += Array("\n\n".utf8)
        return out
    }

    static func change(version: Int, action: [UInt8], patch: [UInt8]) -> [UInt8] {
        var out = Array("event: change\nid: \(version)\ndata: {\"version\":\(version),\"action\":".utf8)
        out += action
        out += Array(",\"patch\":".utf8)
        out += patch
        out += Array("}\n\n".utf8)
        return out
    }

    static func output(version: Int, output: StoreOutput) -> [UInt8] {
        var out: [UInt8] = []
        out += Array("event: output\ndata: {\"version\":\(version),\"output\":{\"type\":".utf8)
        out += JSONValue.string(output.type).encoded()
        if let payload = output.payload {
            out += Array(",\"payload\":".utf8)
            out += payload.encoded()
        }
        out += Array("}}\n\n".utf8)
        return out
    }

    static func end(reason: String) -> [UInt8] {
        Array("event: end\ndata: {\"reason\":\"\(reason)\"}\n\n".utf8)
    }
}
