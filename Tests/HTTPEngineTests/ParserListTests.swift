import XCTest
@testable import HTTPEngine

/// Framing fields that a lenient parser and a front end could read differently: invalid
/// Content-Length lists (RFC 9110 §8.6) and trailer lines that are not fields (RFC 9112 §7.1.2).
final class ParserListTests: XCTestCase {
    func assertRefused(_ text: String, _ status: Int = 400, file: StaticString = #filePath, line: UInt = #line) {
        for slice in [0, 1, 3, 64] {
            let outcomes = drive(text, slice: slice)
            XCTAssertEqual(outcomes, [.error(status)], "\(text.debugDescription) slice \(slice)", file: file, line: line)
        }
    }

    func testContentLengthWithNoValueInItsListIsRefused() {
        // Read as no body, the request after it would run.
        assertRefused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: ,\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n")
        assertRefused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: , ,\r\n\r\n")
    }

    func testContentLengthListsWithEmptyElementsAreRefused() {
        assertRefused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5,\r\n\r\nhello")
        assertRefused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: ,5\r\n\r\nhello")
        assertRefused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5,,5\r\n\r\nhello")
        assertRefused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\nhello!")
    }

    func testIdenticalListStillAccepted() {
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5 , 5\r\n\r\nhello"),
                       [.request(method: "POST", target: "/", body: "hello", keepAlive: true)])
    }

    func testRequestLineInTrailerSectionIsRefused() {
        assertRefused("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nGET /smuggled HTTP/1.1\r\n\r\n")
    }

    func testTrailerLinesAreCheckedAsFields() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        assertRefused(head + "no colon here\r\n\r\n")
        assertRefused(head + ": empty name\r\n\r\n")
        assertRefused(head + "Bad Name: v\r\n\r\n")
        assertRefused(head + "Name : v\r\n\r\n")
        assertRefused(head + "X: 1\r\n  folded\r\n\r\n")
        XCTAssertEqual(drive(head + "X-Checksum: abc\r\nY:\r\n\r\n"),
                       [.request(method: "POST", target: "/", body: "", keepAlive: true)])
    }
}
