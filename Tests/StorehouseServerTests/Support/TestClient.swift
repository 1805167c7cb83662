import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as the tests see it.
struct TestResponse {
    let status: Int
    let headers: [(String, String)]
    let body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The body parsed with Foundation, so the tests do not trust the server's own JSON reader.
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) as? [String: Any] ?? [:] }
    var jsonAny: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
}

struct TestClientError: Error, CustomStringConvertible { let description: String }

/// A blocking HTTP/1.1 client over one keep-alive socket, written for the tests:
/// raw requests in, parsed responses out, with a read deadline so a test can never hang.
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError(description: "socket failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw TestClientError(description: "connect failed: \(errno)") }
    }

    deinit { close(fd) }

    func setReadTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func sendRaw(_ text: String) throws { try sendBytes(Array(text.utf8)) }

    func sendBytes(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestClientError(description: "send failed: \(errno)") }
            offset += n
        }
    }

    /// Sends one request; `Content-Length` is added for a body.
    func request(_ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil) throws -> TestResponse {
        try sendRequest(method, target, headers: headers, body: body)
        return try readResponse(method: method)
    }

    /// Sends one request without reading its answer (`readResponse` reads it later).
    func sendRequest(_ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        head += "\r\n"
        try sendRaw(head + (body ?? ""))
    }

    /// Reads bytes until `predicate` holds for the buffer, or the deadline passes.
    private func fill(until predicate: ([UInt8]) -> Bool) throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !predicate(buffer) {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 { buffer += chunk[..<n]; continue }
            if n == 0 { throw TestClientError(description: "connection closed; have \(String(decoding: buffer, as: UTF8.self).prefix(300))") }
            if errno == EINTR { continue }
            throw TestClientError(description: "receive failed (errno \(errno)); have \(String(decoding: buffer, as: UTF8.self).prefix(300))")
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int = 0) -> Int? {
        guard haystack.count >= needle.count + from else { return nil }
        var i = from
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    /// Reads one response head and its body (Content-Length, chunked, or none).
    func readResponse(method: String = "GET") throws -> TestResponse {
        let crlf2 = Array("\r\n\r\n".utf8)
        try fill { Self.find(crlf2, in: $0) != nil }
        guard let end = Self.find(crlf2, in: buffer) else { throw TestClientError(description: "no head") }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestClientError(description: "bad status line \(head)") }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let response = TestResponse(status: status, headers: headers, body: [])
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            try fill { $0.count >= length }
            let body = Array(buffer[..<length])
            buffer.removeFirst(length)
            return TestResponse(status: status, headers: headers, body: body)
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while true {
                let size = try readChunkSize()
                if size == 0 { try fill { Self.find(Array("\r\n".utf8), in: $0) != nil }; buffer.removeFirst(2); break }
                try fill { $0.count >= size + 2 }
                body += buffer[..<size]
                buffer.removeFirst(size + 2)
            }
            return TestResponse(status: status, headers: headers, body: body)
        }
        return response
    }

    private func readChunkSize() throws -> Int {
        let crlf = Array("\r\n".utf8)
        try fill { Self.find(crlf, in: $0) != nil }
        guard let end = Self.find(crlf, in: buffer) else { throw TestClientError(description: "no chunk size") }
        let line = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 2)
        guard let size = Int(line.split(separator: ";")[0], radix: 16) else { throw TestClientError(description: "bad chunk size \(line)") }
        return size
    }

    // MARK: Server-sent events

    /// Opens an event stream on this connection and returns the response head.
    func openEvents(_ target: String, headers: [String: String] = [:]) throws -> TestResponse {
        var head = "GET \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try sendRaw(head + "\r\n")
        let crlf2 = Array("\r\n\r\n".utf8)
        try fill { Self.find(crlf2, in: $0) != nil }
        guard let end = Self.find(crlf2, in: buffer) else { throw TestClientError(description: "no head") }
        let text = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = text.components(separatedBy: "\r\n")
        let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        streamChunked = headers.contains { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }
        return TestResponse(status: status, headers: headers, body: [])
    }

    private var streamChunked = false
    private var eventText: [UInt8] = []

    /// The next event (or comment block), as its lines, waiting for it up to the read timeout.
    func nextEvent() throws -> SSEEvent {
        let separator = Array("\n\n".utf8)
        while Self.find(separator, in: eventText) == nil {
            if streamChunked {
                let size = try readChunkSize()
                if size == 0 { throw TestClientError(description: "stream ended") }
                try fill { $0.count >= size + 2 }
                eventText += buffer[..<size]
                buffer.removeFirst(size + 2)
            } else {
                try fill { !$0.isEmpty }
                eventText += buffer
                buffer.removeAll()
            }
        }
        guard let end = Self.find(separator, in: eventText) else { throw TestClientError(description: "unreachable") }
        let block = String(decoding: eventText[..<end], as: UTF8.self)
        eventText.removeFirst(end + 2)
        return SSEEvent(block: block)
    }

    /// Whether bytes the test has not read yet are here now (buffered or in the socket), without waiting.
    func hasUnreadBytes() -> Bool {
        var byte: UInt8 = 0
        return !buffer.isEmpty || !eventText.isEmpty || recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// Whether the server closed the connection (EOF) within the read timeout.
    func waitForClose() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }
}

/// One server-sent event, or a comment block.
struct SSEEvent {
    var event: String?
    var id: String?
    var data: String = ""
    var retry: String?
    var comments: [String] = []

    init(block: String) {
        var dataLines: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces)); continue }
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let field = String(parts[0])
            var value = parts.count > 1 ? String(parts[1]) : ""
            if value.hasPrefix(" ") { value.removeFirst() }
            switch field {
            case "event": event = value
            case "id": id = value
            case "data": dataLines.append(value)
            case "retry": retry = value
            default: break
            }
        }
        data = dataLines.joined(separator: "\n")
    }

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
}
