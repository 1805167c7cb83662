// libFuzzer target for the whole request path: event loop, router, sessions. Built by
// scripts/fuzz-stream.sh with `swiftc -sanitize=fuzzer,address` from the modules' sources (not a
// SwiftPM target), linked with an in-memory Storehouse that runs on its own threads in this process.
//
// An input is a request stream for one connection: its first byte picks up to four points at which
// the stream is cut into separate sends (so requests arrive split anywhere, several per send, or
// pipelined), and `{id}` and `{token}` in it become a live session's id and token, so seeds reach
// the session routes. The client then half-closes and reads until the server closes. Besides traps
// and sanitizer reports, the target fails when an answer is not HTTP/1.1 framed (a status line
// first), when the server sends nothing for a stream that starts with a whole request head, or when
// the server stops answering `GET /healthz` on a fresh connection.

import Foundation
import StorehouseServer
#if canImport(Glibc)
import Glibc
#endif

/// The server and its session, made on the first input (libFuzzer has no setup hook in Swift).
final class FuzzServer: @unchecked Sendable {  // written once, on libFuzzer's thread, before any read
    static let shared = FuzzServer()
    let server: Storehouse
    var id = ""
    var token = ""
    var inputs = 0

    init() {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemory = true
        configuration.accessLog = false
        configuration.ioThreads = 2
        configuration.effectLatencyMilliseconds = 0
        do {
            server = try Storehouse(configuration: configuration)
            try server.start()
        } catch {
            fatalError("the fuzz server did not start: \(error)")
        }
        newSession()
    }

    /// A fresh counter session. The harness's own request is tried three times: on a machine
    /// loaded enough to delay one answer past the client's timeout, the setup is not the finding.
    func newSession() {
        var text = ""
        for _ in 0..<3 {
            let answer = exchange(Array("POST /sessions HTTP/1.1\r\nHost: f\r\nContent-Length: 18\r\nConnection: close\r\n\r\n{\"kind\":\"counter\"}".utf8))
            text = String(decoding: answer, as: UTF8.self)
            if let start = text.range(of: "\r\n\r\n"),
               let json = try? JSONSerialization.jsonObject(with: Data(text[start.upperBound...].utf8)) as? [String: Any],
               let id = json["id"] as? String, let token = json["token"] as? String {
                self.id = id
                self.token = token
                return
            }
        }
        fatalError("no session after three tries: \(text)")
    }

    /// Sends `bytes` in the given pieces on a new connection, half-closes, and returns all it got.
    func exchange(_ bytes: [UInt8], cuts: [Int] = []) -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { fatalError("socket: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { fatalError("connect: \(errno)") }
        var start = 0
        for cut in (cuts + [bytes.count]).sorted() where cut >= start && cut <= bytes.count {
            var offset = start
            while offset < cut {
                let sent = bytes[offset..<cut].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { break }  // the server closed early (it refused the stream): fine
                offset += sent
            }
            start = cut
        }
        shutdown(fd, Int32(SHUT_WR))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
            if received.count > 64 << 20 { break }
        }
        return received
    }
}

func replacing(_ bytes: [UInt8], _ placeholder: String, with value: String) -> [UInt8] {
    let needle = Array(placeholder.utf8), replacement = Array(value.utf8)
    guard bytes.count >= needle.count else { return bytes }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        if i + needle.count <= bytes.count && bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle {
            out += replacement
            i += needle.count
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fuzz = FuzzServer.shared
    guard size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var stream = Array(input.dropFirst())
    stream = replacing(stream, "{id}", with: fuzz.id)
    stream = replacing(stream, "{token}", with: fuzz.token)
    // Cut points from the first byte: up to four, spread over the stream.
    let seed = Int(input[0])
    var cuts: [Int] = []
    if !stream.isEmpty {
        for k in 0..<(seed & 3) + 1 { cuts.append((seed * (k + 7) * 131 + k * 977) % (stream.count + 1)) }
    }
    let answer = fuzz.exchange(stream, cuts: cuts)
    if !answer.isEmpty && !answer.starts(with: Array("HTTP/1.1 ".utf8)) {
        fatalError("an answer that is not HTTP/1.1: \(String(decoding: answer.prefix(200), as: UTF8.self).debugDescription)")
    }
    // A stream that begins with a whole, valid-looking head is answered (a status or a refusal), never dropped.
    if answer.isEmpty, let text = String(bytes: stream.prefix(512), encoding: .utf8),
       text.hasPrefix("GET /healthz HTTP/1.1\r\nHost: f\r\n\r\n") {
        fatalError("no answer to a whole GET /healthz")
    }
    fuzz.inputs += 1
    if fuzz.inputs % 200 == 0 {
        let health = fuzz.exchange(Array("GET /healthz HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n".utf8))
        if !health.starts(with: Array("HTTP/1.1 200".utf8)) { fatalError("the server stopped answering /healthz") }
    }
    // A stream that may have deleted the session gets a new one, and every 10,000 inputs the
    // session is replaced, so no history grows without end.
    let deleting = stream.count >= 6 && (0...(stream.count - 6)).contains { stream[$0..<($0 + 6)].elementsEqual("DELETE".utf8) }
    if deleting || fuzz.inputs % 10_000 == 0 {
        _ = fuzz.exchange(Array("DELETE /sessions/\(fuzz.id) HTTP/1.1\r\nHost: f\r\nAuthorization: Bearer \(fuzz.token)\r\nConnection: close\r\n\r\n".utf8))
        fuzz.newSession()
    }
    return 0
}
