import XCTest
import Glibc
@testable import HTTPEngine

/// Hostile byte streams over sockets: no crash, and every descriptor comes back.
final class RobustnessTests: XCTestCase {
    func testRandomGarbageAndAbortsLeakNothing() throws {
        let server = try startServer(handler: echoHandler)
        defer { server.shutdown(); server.waitUntilStopped() }
        let baseline = openDescriptorCount()
        var rng = SystemRandomNumberGenerator()
        for i in 0..<300 {
            let client = try RawClient(port: server.port, timeoutSeconds: 2)
            let n = Int.random(in: 1..<3_000, using: &rng)
            var bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if i % 3 == 0 { bytes = Array("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + bytes }
            client.send(bytes)
            if i % 2 == 0 {
                client.abort()
            } else {
                client.shutdownWrite()   // the half-close lets the server finish at once instead of waiting for a deadline
                _ = client.readToEOF()
            }
        }
        XCTAssertTrue(waitUntil { server.openConnections == 0 }, "open: \(server.openConnections)")
        XCTAssertTrue(waitUntil { openDescriptorCount() <= baseline }, "fds \(openDescriptorCount()) vs \(baseline)")
        // Still serving.
        let client = try RawClient(port: server.port)
        client.send("GET /ok HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.text, "path=/ok")
    }

    func testClientVanishingMidResponseDoesNotKillServer() throws {
        let big = [UInt8](repeating: 0x62, count: 4 << 20)
        let server = try startServer({ $0.maxBodyBytes = 8 }, handler: { _, responder in
            responder.respond(HTTPResponse(status: 200, body: big))
        })
        defer { server.shutdown(); server.waitUntilStopped() }
        for _ in 0..<20 {
            let client = try RawClient(port: server.port)
            client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            client.abort()   // EPIPE / ECONNRESET on the server's send; SIGPIPE must not fire
        }
        XCTAssertTrue(waitUntil { server.openConnections == 0 })
    }
}

extension RobustnessTests {
    /// accept4 failing with EMFILE must not spin the level-triggered loop, and accepting resumes later.
    func testOutOfDescriptorsDoesNotSpinAndRecovers() throws {
        let server = try startServer({ $0.ioThreads = 1 }, handler: echoHandler)
        defer { server.shutdown(); server.waitUntilStopped() }
        var saved = rlimit()
        getrlimit(Syscalls.RLIMIT_NOFILE_VALUE, &saved)
        let sockets = (0..<3).map { _ in socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
        defer { for fd in sockets { close(fd) } }
        var low = saved
        low.rlim_cur = rlim_t(openDescriptorCount() - 1)
        setrlimit(Syscalls.RLIMIT_NOFILE_VALUE, &low)
        var usageBefore = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageBefore)
        for fd in sockets {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(server.port).bigEndian)
            sa.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            XCTAssertEqual(rc, 0)
            let request = Array("GET /x HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        usleep(400_000)
        var usageAfter = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageAfter)
        setrlimit(Syscalls.RLIMIT_NOFILE_VALUE, &saved)
        func ms(_ t: timeval) -> Int { t.tv_sec * 1_000 + Int(t.tv_usec) / 1_000 }
        let cpu = ms(usageAfter.ru_utime) + ms(usageAfter.ru_stime) - ms(usageBefore.ru_utime) - ms(usageBefore.ru_stime)
        XCTAssertLessThan(cpu, 200, "the loop spun for \(cpu) ms of CPU in 400 ms")
        for fd in sockets {
            var tv = timeval(tv_sec: 3, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            XCTAssertGreaterThan(n, 0)
            XCTAssertTrue(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        }
    }
}

import Synchronization

extension RobustnessTests {
    private final class Counter: Sendable {
        let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var current: Int { value.withLock { $0 } }
    }

    /// A client that pipelines requests and never reads its answers: the server stops taking them
    /// once the unsent answers pass `EventLoop.outboundHighWater` (before, it answered every one and
    /// held them all: hundreds of MB from a few MB of requests), and goes on once they are read.
    func testPipelinedRequestsWaitWhileTheirAnswersPileUp() throws {
        let body = [UInt8](repeating: 0x61, count: 64 << 10)
        let handled = Counter()
        let server = try startServer({ $0.ioThreads = 1 }, handler: { _, responder in
            handled.add()
            responder.respond(HTTPResponse(status: 200, body: body))
        })
        defer { server.shutdown(); server.waitUntilStopped() }
        let client = try RawClient(port: server.port, timeoutSeconds: 10)
        var small: Int32 = 16 << 10
        setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let count = 400
        client.send(String(repeating: "GET /x HTTP/1.1\r\nHost: t\r\n\r\n", count: count))
        // What the kernel's buffers take (a few MB: ~70 answers of 64 KiB) plus the mark, not all 400.
        XCTAssertFalse(waitUntil(seconds: 1) { handled.current == count }, "every request was answered into memory")
        XCTAssertLessThan(handled.current, count / 2)
        for i in 0..<count {
            let answer = client.readResponse()
            XCTAssertEqual(answer?.status, 200, "answer \(i)")
            XCTAssertEqual(answer?.body.count, body.count, "answer \(i)")
            if answer == nil { break }
        }
        XCTAssertEqual(handled.current, count)
    }
}
