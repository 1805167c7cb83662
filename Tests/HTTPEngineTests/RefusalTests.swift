import XCTest
@testable import HTTPEngine

/// Each engine refusal over a raw socket: status, problem+json slug, and `Connection: close`.
final class RefusalTests: XCTestCase {
    var server: HTTPServer?

    override func tearDown() {
        server?.shutdown()
        server?.waitUntilStopped()
        server = nil
    }

    func port(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> Int {
        if let server { return server.port }
        let s = try startServer(configure, handler: echoHandler)
        server = s
        return s.port
    }

    func assertRefused(_ raw: String, _ status: Int, _ slug: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let client = try RawClient(port: try port())
        client.send(raw)
        let r = try XCTUnwrap(client.readResponse(), file: file, line: line)
        XCTAssertEqual(r.status, status, file: file, line: line)
        XCTAssertEqual(r.header("Connection"), "close", file: file, line: line)
        XCTAssertEqual(r.header("Content-Type"), "application/problem+json", file: file, line: line)
        XCTAssertTrue(r.text.hasPrefix(#"{"type":"/problems/\#(slug)","title":""#), r.text, file: file, line: line)
        XCTAssertTrue(r.text.contains(#""status":\#(status)"#), file: file, line: line)
        XCTAssertTrue(client.isClosedByPeer(), "connection must close", file: file, line: line)
    }

    func testMalformedRequestLine() throws { try assertRefused("GET /a b HTTP/1.1\r\nHost: t\r\n\r\n", 400, "bad-request") }
    func testInvalidHeaderName() throws { try assertRefused("GET / HTTP/1.1\r\nHost: t\r\nBad(Name): v\r\n\r\n", 400, "bad-request") }
    func testInvalidHeaderValue() throws { try assertRefused("GET / HTTP/1.1\r\nHost: t\r\nX: a\u{00}b\r\n\r\n", 400, "bad-request") }
    func testObsFold() throws { try assertRefused("GET / HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n", 400, "bad-request") }
    func testContentLengthNotDigits() throws { try assertRefused("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: +5\r\n\r\nhello", 400, "bad-request") }
    func testDifferingContentLengths() throws { try assertRefused("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400, "bad-request") }
    func testContentLengthWithTransferEncoding() throws {
        try assertRefused("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400, "bad-request")
    }
    func testTransferCodingOtherThanChunked() throws { try assertRefused("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "bad-request") }
    func testBadChunkSize() throws { try assertRefused("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", 400, "bad-request") }
    func testHeaderBlockTooLarge() throws {
        try assertRefused("GET / HTTP/1.1\r\nHost: t\r\nX: " + String(repeating: "a", count: 17 << 10) + "\r\n\r\n", 431, "headers-too-large")
    }
    func testTooManyHeaderFields() throws {
        try assertRefused("GET / HTTP/1.1\r\nHost: t\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined() + "\r\n", 431, "headers-too-large")
    }
    func testBodyTooLarge() throws {
        _ = try port { $0.maxBodyBytes = 1_000 }
        try assertRefused("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n" + String(repeating: "a", count: 1001), 413, "body-too-large")
    }
    func testChunkedBodyTooLarge() throws {
        _ = try port { $0.maxBodyBytes = 10 }
        try assertRefused("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n", 413, "body-too-large")
    }
    func testTargetTooLong() throws { try assertRefused("GET /" + String(repeating: "a", count: 9 << 10) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414, "uri-too-long") }
    func testUnsupportedVersion() throws { try assertRefused("GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505, "http-version-not-supported") }

    func testTooManyConnections() throws {
        let p = try port { $0.maxConnections = 2; $0.ioThreads = 1 }
        let a = try RawClient(port: p), b = try RawClient(port: p)
        for c in [a, b] {
            c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(c.readResponse()?.status, 200)
        }
        try assertRefused("GET / HTTP/1.1\r\nHost: t\r\n\r\n", 503, "too-many-connections")
        // A slot frees when a client leaves.
        a.abort()
        XCTAssertTrue(waitUntil { self.server?.openConnections == 1 })
        let c = try RawClient(port: p)
        c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(c.readResponse()?.status, 200)
    }
}
