import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `storehouse healthcheck`: asks the running server for `/healthz` over a plain socket,
/// so the container image needs no curl. Exit status 0 when it answers 200.
public enum HealthCheck {
    public static func run(host: String, port: Int, timeoutSeconds: Int = 3) -> Int32 {
        let target = (host == "0.0.0.0" || host == "::") ? "127.0.0.1" : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target, String(port), &hints, &info) == 0, let first = info else {
            print("healthcheck: cannot resolve \(target)")
            return 1
        }
        defer { freeaddrinfo(info) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return 1 }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            print("healthcheck: cannot connect to \(target):\(port)")
            return 1
        }
        // An IPv6 address goes in brackets in a Host field (RFC 3986 §3.2.2), which the server checks.
        let authority = target.contains(":") ? "[\(target)]" : target
        let request = Array("GET /healthz HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return 1 }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return 1 }
        let head = String(decoding: buffer[..<n], as: UTF8.self)
        let ok = head.hasPrefix("HTTP/1.1 200") || head.hasPrefix("HTTP/1.0 200")
        print(ok ? "healthy" : "unhealthy: \(head.split(separator: "\r\n").first ?? "")")
        return ok ? 0 : 1
    }
}
