import XCTest
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
