import Foundation

/// A `storehouse` server started for a benchmark on a free loopback port, ready when made.
struct BenchServer {
    let process: Process
    let port: Int

    /// `directory` nil: `--in-memory`; otherwise a journal there with `--fsync never`.
    init(binary: String, directory: String?) {
        port = BenchServer.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        var arguments = ["--port", String(port), "--access-log", "false"]
        if let directory { arguments += ["--data-dir", directory, "--fsync", "never"] } else { arguments.append("--in-memory") }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { benchFail("cannot start \(binary): \(error)") }
        // Ready once /readyz answers 200 (recovery done).
        for _ in 0..<6_000 {
            if let address = FanoutAddress.resolve(host: "127.0.0.1", port: port), case .success(let fd) = address.connectBlocking() {
                _ = close(fd)
                var client = BenchClient(port: port)
                if client.request("GET", "/readyz", token: nil).status == 200 { return }
            }
            usleep(2_000)
        }
        benchFail("the server did not get ready")
    }

    func rssKiB() -> Int { benchRSSKiB(of: String(process.processIdentifier)) }

    mutating func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { _ = close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// One keep-alive HTTP/1.1 connection, a request at a time (blocking).
struct BenchClient {
    struct SessionRef: Sendable {
        let id: String
        let token: String
    }

    private var fd: Int32 = -1
    private let port: Int
    private var buffer: [UInt8] = []

    init(port: Int) { self.port = port }

    private mutating func connectIfNeeded() {
        guard fd < 0 else { return }
        guard let address = FanoutAddress.resolve(host: "127.0.0.1", port: port) else { benchFail("cannot resolve 127.0.0.1") }
        switch address.connectBlocking() {
        case .success(let opened): fd = opened
        case .failure(let error): benchFail("connect: \(error)")
        }
        fanoutSetNoDelay(fd)
        buffer = []
    }

    mutating func request(_ method: String, _ path: String, token: String?, body: [UInt8] = [], headers: String = "") -> (status: Int, body: [UInt8]) {
        connectIfNeeded()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        guard fanoutSendAll(fd, Array((head + "\r\n").utf8) + body) else { benchFail("send failed") }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            var malformed = false
            if let answer = fanoutParseResponse(buffer, malformed: &malformed) {
                buffer.removeFirst(answer.used)
                return (answer.status, answer.body)
            }
            if malformed { benchFail("a malformed answer") }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { buffer += chunk[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            benchFail("the server closed the connection")
        }
    }

    mutating func createSession(kind: String) -> SessionRef {
        let (status, body) = request("POST", "/sessions", token: nil, body: Array(#"{"kind":"\#(kind)"}"#.utf8))
        guard status == 201, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let id = object["id"] as? String, let token = object["token"] as? String else {
            benchFail("POST /sessions answered \(status)")
        }
        return SessionRef(id: id, token: token)
    }

    /// POSTs the actions (a batch when more than one) with `Prefer: return=minimal`; the new version.
    mutating func post(_ session: SessionRef, _ actions: [String]) -> Int {
        let body = actions.count == 1 ? actions[0] : "[" + actions.joined(separator: ",") + "]"
        let (status, answer) = request("POST", "/sessions/\(session.id)/actions", token: session.token, body: Array(body.utf8),
                                       headers: "Prefer: return=minimal\r\n")
        guard status == 200 else { benchFail("POST actions answered \(status): \(String(decoding: answer.prefix(300), as: UTF8.self))") }
        // {"version":N,...}
        let prefix = Array(#"{"version":"#.utf8)
        guard answer.starts(with: prefix) else { return 0 }
        var version = 0
        for byte in answer.dropFirst(prefix.count) {
            guard byte >= 0x30, byte <= 0x39 else { break }
            version = version * 10 + Int(byte - 0x30)
        }
        return version
    }
}
