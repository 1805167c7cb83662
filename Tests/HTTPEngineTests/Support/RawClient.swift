import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A response as read off a raw socket.
struct RawResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking TCP client that speaks raw bytes, with a receive timeout so no test can hang.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var sawEOF = false

    init(port: Int, timeoutSeconds: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = in_port_t(UInt16(port).bigEndian)
        sa.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .ECONNREFUSED)
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Closes with an RST (SO_LINGER 0), the way a killed process's socket can go.
    func abort() {
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    @discardableResult
    private func fill() -> Bool {
        guard !sawEOF else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { sawEOF = true; return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func readLine() -> String? {
        while true {
            if let i = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[0..<i])
                if line.last == 0x0D { line.removeLast() }
                buffer.removeFirst(i + 1)
                return String(decoding: line, as: UTF8.self)
            }
            if !fill() { return nil }
        }
    }

    private func readExactly(_ n: Int) -> [UInt8]? {
        while buffer.count < n { if !fill() { return nil } }
        let out = Array(buffer[0..<n])
        buffer.removeFirst(n)
        return out
    }

    /// Reads the next response; `head: true` for a HEAD request (no body follows).
    func readResponse(head: Bool = false) -> RawResponse? {
        guard let statusLine = readLine() else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else { return nil }
        var headers: [(name: String, value: String)] = []
        while let line = readLine() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if head || status < 200 || status == 204 || status == 304 { return response }
        if let cl = response.header("Content-Length"), let n = Int(cl) {
            guard let body = readExactly(n) else { return nil }
            response.body = body
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            guard let body = readChunkedBody() else { return nil }
            response.body = body
        } else {
            response.body = readToEOF()
        }
        return response
    }

    func readChunkedBody() -> [UInt8]? {
        var body: [UInt8] = []
        while let line = readLine() {
            guard let size = Int(line.split(separator: ";").first.map(String.init) ?? "", radix: 16) else { return nil }
            if size == 0 {
                while let trailer = readLine(), !trailer.isEmpty {}
                return body
            }
            guard let data = readExactly(size), readLine() == "" else { return nil }
            body.append(contentsOf: data)
        }
        return nil
    }

    /// The next chunk of a chunked stream (nil at the last chunk, EOF or timeout).
    func readChunk() -> [UInt8]? {
        guard let line = readLine(), let size = Int(line, radix: 16), size > 0 else { return nil }
        guard let data = readExactly(size), readLine() == "" else { return nil }
        return data
    }

    func readToEOF() -> [UInt8] {
        while fill() {}
        let out = buffer
        buffer = []
        return out
    }

    /// True when the server closed the connection (EOF or reset) with nothing more to read.
    func isClosedByPeer() -> Bool {
        if !buffer.isEmpty { return false }
        return !fill() && buffer.isEmpty
    }
}

/// Starts a server on an ephemeral port for one test and stops it afterwards.
func startServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                 handler: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void) throws -> HTTPServer {
    var config = HTTPServerConfiguration()
    config.port = 0
    config.ioThreads = 2
    configure(&config)
    let server = HTTPServer(configuration: config, handler: HTTPHandlerClosure(handler))
    try server.start()
    return server
}

/// Answers `200 ok` with the path, or echoes the body for POST.
let echoHandler: @Sendable (HTTPRequest, HTTPResponder) -> Void = { request, responder in
    if request.method == "POST" || request.method == "PUT" {
        responder.respond(HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body))
    } else {
        responder.respond(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("path=\(request.path)".utf8)))
    }
}

/// Polls `condition` until it holds or `seconds` pass (for effects observed through /proc, not events).
func waitUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

import HTTPEngine
