/// One event of an SSE stream (WHATWG HTML, "Server-sent events", 9.2.6).
///
/// ```swift
/// for try await event in session.events() where event.event == "change" { print(event.id ?? "", event.data) }
/// ```
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `message` when there was none.
    public var event: String
    /// The `data:` lines, joined with line feeds.
    public var data: String
    /// The `id:` field of this event, nil when it had none (an `output` event, say).
    public var id: String?
    /// The `retry:` field in milliseconds, when this event carried one.
    public var retry: Int?

    public init(event: String = "message", data: String = "", id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// Turns the bytes of an `text/event-stream` body, in whatever pieces they arrive, into events.
/// Lines end in CRLF, LF or CR (9.2.5); a blank line dispatches; a line starting with `:` is a
/// comment (the server's keep-alive).
struct ServerSentEventParser {
    private var line: [UInt8] = []
    private var afterCR = false
    private var event = ""
    private var data: [String] = []
    private var hasData = false
    private var id: String?
    private var idSeen = false
    private var retry: Int?

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var out: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCR = true
                endLine(into: &out)
            case UInt8(ascii: "\n"):
                endLine(into: &out)
            default:
                line.append(byte)
            }
        }
        return out
    }

    private mutating func endLine(into out: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            // A block without data dispatches nothing (9.2.6); a `retry:` in it rides on the next event.
            if hasData {
                out.append(ServerSentEvent(event: event.isEmpty ? "message" : event, data: data.joined(separator: "\n"),
                                           id: idSeen ? id : nil, retry: retry))
                retry = nil
            }
            event = ""; data = []; hasData = false; id = nil; idSeen = false
            return
        }
        if line.first == UInt8(ascii: ":") { return }
        let text = String(decoding: line, as: UTF8.self)
        let name: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            name = Substring(text)
            value = ""
        }
        switch name {
        case "event": event = String(value)
        case "data": data.append(String(value)); hasData = true
        case "id" where !value.contains("\0"): id = String(value); idSeen = true
        case "retry": if let millis = Int(value), millis >= 0 { retry = millis }
        default: break
        }
    }
}
