#if canImport(Glibc)
import Glibc
#endif

/// Serializes response heads (RFC 9112 §4, §6) and keeps the cached `Date` line (RFC 9110 §6.6.1) of one loop.
struct ResponseEncoder {
    private(set) var dateLine: [UInt8] = []
    private var dateSecond: Int = -1
    /// The storage of the last head the socket took whole, for the next (`recycle`).
    private var spareHead: [UInt8] = []

    init() { refreshDate() }

    /// Re-renders `Date` at most once a second; called once per loop iteration.
    mutating func refreshDate() {
        let now = time(nil)
        guard now != dateSecond else { return }
        dateSecond = now
        dateLine = Self.dateLine(at: now)
    }

    /// `Date: <IMF-fixdate>\r\n` for a second since the epoch (RFC 9110 §5.6.7).
    static func dateLine(at now: Int) -> [UInt8] {
        var t = now
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let text = "Date: \(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT\r\n"
        return Array(text.utf8)
    }

    /// Head + body as output segments; one segment when the body is small so it leaves in one write.
    /// Returns whether the handler asked to close (`Connection: close`).
    mutating func encode(status: Int, headers: HTTPHeaders, headersChecked: Bool = false, body: [UInt8], omitBody: Bool,
                         close: Bool, http10KeepAlive: Bool, into segments: inout OutboundQueue) -> Bool {
        var head = spareHead
        spareHead = []  // so `head` is its storage's only holder and is written in place
        let encoded = Self.encode(status: status, headers: headers, headersChecked: headersChecked, body: body, omitBody: omitBody,
                                  close: close, http10KeepAlive: http10KeepAlive, dateLine: dateLine, into: &head)
        segments.append(head)
        if let body = encoded.body { segments.append(body) }
        return encoded.userClose
    }

    /// Takes back a segment the socket took whole, as storage for the next head: one allocation
    /// and one free less per answer. A segment something else still holds (a stream's shared
    /// chunk, a cached body) is copied, not written, when it is reused, as any array is; a large
    /// one is let go, so a loop keeps at most one small buffer.
    mutating func recycle(_ sent: [UInt8]) {
        if sent.capacity <= Self.maxSpareHeadBytes { spareHead = sent }
    }

    /// The largest head kept for reuse: a head with an inline body (at most 16 KiB) and its fields.
    static let maxSpareHeadBytes = 20 << 10

    /// The head, with the body in it when it is small (one write), or the body apart; and whether
    /// the handler asked to close.
    static func encode(status: Int, headers: HTTPHeaders, headersChecked: Bool = false, body: [UInt8], omitBody: Bool, close: Bool,
                       http10KeepAlive: Bool, dateLine: [UInt8]) -> (head: [UInt8], body: [UInt8]?, userClose: Bool) {
        var head: [UInt8] = []
        let encoded = encode(status: status, headers: headers, headersChecked: headersChecked, body: body, omitBody: omitBody, close: close,
                             http10KeepAlive: http10KeepAlive, dateLine: dateLine, into: &head)
        return (head, encoded.body, encoded.userClose)
    }

    /// The same, written over `head` (its storage reused when nothing else holds it).
    ///
    /// Written in one pass at the size the head takes (computed first: each field's storage holds
    /// 8 bytes of lengths where the wire needs 4, `": "` and CRLF), with raw copies: appending part
    /// by part cost ~1,000 instructions per answer. A dropped field, or a status other than 200 and
    /// 201 (sized at the longest status line), leaves room, which is cut off after.
    ///
    /// `headersChecked` (`HTTPResponse.checkHeaders`) says the fields were found safe and none of
    /// the engine's own when the answer was built: they are written as they are.
    static func encode(status: Int, headers: HTTPHeaders, headersChecked: Bool = false, body: [UInt8], omitBody: Bool, close: Bool,
                       http10KeepAlive: Bool, dateLine: [UInt8], into head: inout [UInt8]) -> (body: [UInt8]?, userClose: Bool) {
        let bodyAllowed = Self.allowsBody(status)
        let inline = bodyAllowed && !omitBody && body.count <= 16 << 10
        // RFC 9110 §8.6: no Content-Length in 1xx or 204, and in a 304 only the 200's length, which
        // the handler did not give (so none); for HEAD it is the GET body's length.
        let hasLength = status != 204 && status != 304 && status >= 200
        let statusBytes = status == 200 ? Line.status200.utf8CodeUnitCount : status == 201 ? Line.status201.utf8CodeUnitCount : maxStatusLine
        // A handler's `Connection: close` is dropped (at least 19 bytes: "Connection: close" CRLF)
        // where the engine's line (at most as long) is written: the count holds either way.
        let connectionBytes = close ? Line.connectionClose.utf8CodeUnitCount : http10KeepAlive ? Line.connectionKeepAlive.utf8CodeUnitCount : 0
        let capacity = statusBytes + (headers.used - 4 * headers.count) + dateLine.count
            + (hasLength ? Line.contentLengthPrefix.utf8CodeUnitCount + ByteCursor.decimalDigits(body.count) + 2 : 0)
            + connectionBytes + 2 + (inline ? body.count : 0)
        var userClose = false
        // Sized by growing or cutting what `head` holds (it is written over): a head as long as
        // the one before, as most answers of a session are, costs no call at all.
        if head.count < capacity { head.appendUninitialized(capacity - head.count) }
        if head.count > capacity { head.removeLast(head.count - capacity) }
        let written = head.withUnsafeMutableBufferPointer { buffer in
            let start = buffer.baseAddress.unsafelyUnwrapped
            var out = ByteCursor(start)
            switch status {
            case 200: out.write(Line.status200)
            case 201: out.write(Line.status201)
            default: out.write(statusLine(status))
            }
            if headersChecked {
                headers.forEachField { name, value in
                    out.write(name)
                    out.write(0x3A); out.write(0x20)
                    out.write(value)
                    out.write(0x0D); out.write(0x0A)
                    return true
                }
            } else {
                headers.forEachField { name, value in
                    switch Self.ownedField(name) {
                    case .connection:
                        if Self.containsClose(value) { userClose = true }
                    case .owned:
                        break
                    case .none:
                        // A field that would split the response (CR/LF in a value, a name that is not
                        // a token) is dropped.
                        guard isSafe(name: name, value: value) else { break }
                        out.write(name)
                        out.write(0x3A); out.write(0x20)
                        out.write(value)
                        out.write(0x0D); out.write(0x0A)
                    }
                    return true
                }
            }
            out.write(dateLine)
            if hasLength {
                out.write(Line.contentLengthPrefix)
                out.writeDecimal(body.count)
                out.write(0x0D); out.write(0x0A)
            }
            if close || userClose {
                out.write(Line.connectionClose)
            } else if http10KeepAlive {
                out.write(Line.connectionKeepAlive)
            }
            out.write(0x0D); out.write(0x0A)
            if inline { out.write(body) }
            return out.count(from: start)
        }
        precondition(written <= capacity, "ResponseEncoder: the head outgrew its computed size")
        if written < capacity { head.removeLast(capacity - written) }
        if inline { return (nil, userClose) }
        return (bodyAllowed && !omitBody && !body.isEmpty ? body : nil, userClose)
    }

    /// The longest status line `statusLine` writes: "HTTP/1.1 ", three digits, a space, the
    /// longest reason (31 bytes) and CRLF.
    static let maxStatusLine = 9 + 3 + 1 + 31 + 2

    /// `HTTP/1.1 <code> <reason>` CRLF for any status (an out-of-range one is written as 500).
    static func statusLine(_ status: Int) -> [UInt8] {
        var line: [UInt8] = []
        appendStatusLine(status, to: &line)
        return line
    }

    /// The head of a streaming response: chunked in 1.1, close-delimited in 1.0 (RFC 9112 §6.3 (8)).
    /// With `close`, a chunked stream says the connection ends with it (RFC 9112 §9.6: the server
    /// SHOULD send "close" in the last response it sends on the connection).
    func encodeStreamHead(status: Int, headers: HTTPHeaders, chunked: Bool, close: Bool = false, into segments: inout OutboundQueue) {
        var head: [UInt8] = []
        head.reserveCapacity(128 + headers.count * 32)
        Self.appendStatusLine(status, to: &head)
        headers.forEachField { name, value in
            if Self.ownedField(name) == .none { Self.appendField(name, value, to: &head) }
            return true
        }
        head.append(contentsOf: dateLine)
        head.append(contentsOf: chunked ? Self.transferChunked : Self.connectionClose)
        if chunked && close { head.append(contentsOf: Self.connectionClose) }
        head.append(0x0D); head.append(0x0A)
        segments.append(head)
    }

    /// An RFC 9457 problem+json answer for a refusal the engine makes itself.
    static func problemBody(_ error: HTTPParseError) -> [UInt8] {
        var s = #"{"type":"/problems/"#
        s += error.slug
        s += #"","title":""#
        s += jsonEscaped(error.title)
        s += #"","status":"#
        s += String(error.status)
        s += #","detail":""#
        s += jsonEscaped(error.detail)
        s += #""}"#
        return Array(s.utf8)
    }

    static func problemHeaders() -> HTTPHeaders { ["Content-Type": "application/problem+json"] }

    static func jsonEscaped(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    // MARK: pieces

    enum Owned { case none, owned, connection }

    /// Framing fields belong to the engine; a handler's copy would contradict what is written.
    static func ownedField(_ name: UnsafeBufferPointer<UInt8>) -> Owned {
        switch name.count {
        case 4 where HTTPHeaders.equalsIgnoringCase(name, "Date"): return .owned
        case 10 where HTTPHeaders.equalsIgnoringCase(name, "Connection"): return .connection
        case 14 where HTTPHeaders.equalsIgnoringCase(name, "Content-Length"): return .owned
        case 17 where HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding"): return .owned
        default: return .none
        }
    }

    /// Whether a handler's `Connection` value names `close` (RFC 9110 §7.6.1: a list of tokens).
    static func containsClose(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        HTTPRequestParser.forEachListElement(value) { token in
            if HTTPHeaders.equalsIgnoringCase(token, "close") { found = true }
        }
        return found
    }

    /// Writes `name: value` CRLF, unless the field would split the response (CR/LF in a value, a
    /// name that is not a token): such a field is dropped.
    static func appendField(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, to head: inout [UInt8]) {
        guard isSafe(name: name, value: value) else { return }
        head.append(contentsOf: name)
        head.append(0x3A); head.append(0x20)
        head.append(contentsOf: value)
        head.append(0x0D); head.append(0x0A)
    }

    /// Whether every field may be written as it is (`HTTPResponse.checkHeaders`): each is safe
    /// (`isSafe`) and none is the engine's own. One tight pass, the token table looked up once.
    static func fieldsWritableAsIs(_ headers: HTTPHeaders) -> Bool {
        let tokens = ASCII.tokenTable.utf8Start
        return headers.withFieldBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let (name, value, next) = HTTPHeaders.field(in: bytes, at: offset)
                guard !name.isEmpty, ownedField(name) == .none else { return false }
                for b in name where tokens[Int(b)] != UInt8(ascii: "1") { return false }
                guard ASCII.isFieldValue(value) else { return false }
                offset = next
            }
            return true
        }
    }

    static func isSafe(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !name.isEmpty else { return false }
        for b in name where !ASCII.isTokenChar(b) { return false }
        return ASCII.isFieldValue(value)
    }

    static func allowsBody(_ status: Int) -> Bool { status >= 200 && status != 204 && status != 304 }

    static func appendStatusLine(_ status: Int, to head: inout [UInt8]) {
        switch status {
        case 200: return head.append(contentsOf: Self.status200)
        case 201: return head.append(contentsOf: Self.status201)
        default: break
        }
        head.append(contentsOf: Self.http11)
        let code = (100...999).contains(status) ? status : 500
        head.append(UInt8(48 + code / 100)); head.append(UInt8(48 + code / 10 % 10)); head.append(UInt8(48 + code % 10))
        head.append(0x20)
        head.append(contentsOf: Self.reason(code).utf8)
        head.append(0x0D); head.append(0x0A)
    }

    static func appendHex(_ n: Int, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var shift = (Int.bitWidth - n.leadingZeroBitCount + 3) / 4 * 4 - 4
        if n == 0 { out.append(0x30); return }
        while shift >= 0 { out.append(hex[(n >> shift) & 0xF]); shift -= 4 }
    }

    /// The fixed lines of every answer's head as literals: written from the binary's constants,
    /// with no lazily made array to look up (a `swift_once` each) per answer.
    enum Line {
        static var status200: StaticString { "HTTP/1.1 200 OK\r\n" }
        static var status201: StaticString { "HTTP/1.1 201 Created\r\n" }
        static var contentLengthPrefix: StaticString { "Content-Length: " }
        static var connectionClose: StaticString { "Connection: close\r\n" }
        static var connectionKeepAlive: StaticString { "Connection: keep-alive\r\n" }
    }

    static let http11: [UInt8] = Array("HTTP/1.1 ".utf8)
    /// The status lines of nearly every answer, ready-made.
    static let status200: [UInt8] = Array("HTTP/1.1 200 OK\r\n".utf8)
    static let status201: [UInt8] = Array("HTTP/1.1 201 Created\r\n".utf8)
    static let contentLengthPrefix: [UInt8] = Array("Content-Length: ".utf8)
    static let connectionClose: [UInt8] = Array("Connection: close\r\n".utf8)
    static let connectionKeepAlive: [UInt8] = Array("Connection: keep-alive\r\n".utf8)
    static let transferChunked: [UInt8] = Array("Transfer-Encoding: chunked\r\n".utf8)
    static let continue100: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let crlf: [UInt8] = [0x0D, 0x0A]
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 425: return "Too Early"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }
}

/// Writes bytes at a pointer into memory the caller sized for all of them (`ResponseEncoder.encode`).
struct ByteCursor {
    private var at: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { at = start }

    @inline(__always) mutating func write(_ byte: UInt8) {
        at.initialize(to: byte)
        at += 1
    }

    @inline(__always) mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        at.initialize(from: base, count: bytes.count)
        at += bytes.count
    }

    @inline(__always) mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always) mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// How many digits `writeDecimal` writes for `n` (non-negative).
    static func decimalDigits(_ n: Int) -> Int {
        var digits = 1, v = n
        while v >= 10 { v /= 10; digits += 1 }
        return digits
    }

    /// A non-negative number in decimal.
    mutating func writeDecimal(_ n: Int) {
        let digits = Self.decimalDigits(n)
        var v = n
        for i in stride(from: digits - 1, through: 0, by: -1) {
            (at + i).initialize(to: UInt8(48 + v % 10))
            v /= 10
        }
        at += digits
    }

    func count(from start: UnsafeMutablePointer<UInt8>) -> Int { at - start }
}
