@testable import HTTPEngine
import XCTest

/// The response head as written (RFC 9112 §4, §6; RFC 9110 §7.6.1 for `Connection`).
final class ResponseEncoderTests: XCTestCase {
    private let date = Array("Date: Sun, 22 Nov 2026 00:00:00 GMT\r\n".utf8)

    private func head(_ headers: HTTPHeaders, status: Int = 200, body: String = "ok") -> (text: String, userClose: Bool) {
        let encoded = ResponseEncoder.encode(status: status, headers: headers, body: Array(body.utf8), omitBody: false,
                                             close: false, http10KeepAlive: false, dateLine: date)
        return (String(decoding: encoded.head, as: UTF8.self), encoded.userClose)
    }

    func testHandlerFieldsAreWrittenInOrderWithTheEnginesFramingAfterThem() {
        let (text, userClose) = head(["Content-Type": "application/json", "ETag": "\"7\""])
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"7\"\r\n"
                       + "Date: Sun, 22 Nov 2026 00:00:00 GMT\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertFalse(userClose)
    }

    func testFramingFieldsOfTheHandlerAreDroppedWhateverTheirCase() {
        let (text, _) = head(HTTPHeaders([("content-length", "99"), ("DATE", "yesterday"), ("Transfer-Encoding", "chunked"), ("X-Kept", "1")]))
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nX-Kept: 1\r\nDate: Sun, 22 Nov 2026 00:00:00 GMT\r\nContent-Length: 2\r\n\r\nok")
    }

    func testAFieldThatWouldSplitTheResponseIsDropped() {
        let (text, _) = head(HTTPHeaders([("X-Bad", "a\r\nSet-Cookie: x=1"), ("Bad Name", "v"), ("", "v"), ("X-Good", "tab\there")]))
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nX-Good: tab\there\r\nDate: Sun, 22 Nov 2026 00:00:00 GMT\r\nContent-Length: 2\r\n\r\nok")
    }

    func testAHandlersConnectionCloseClosesAndIsWrittenOnceByTheEngine() {
        for value in ["close", "Close", "keep-alive, CLOSE", " close "] {
            let (text, userClose) = head(["Connection": value])
            XCTAssertTrue(userClose, value)
            XCTAssertTrue(text.hasSuffix("Connection: close\r\n\r\nok"), value)
            XCTAssertEqual(text.components(separatedBy: "Connection:").count, 2, value)
        }
        for value in ["keep-alive", "closed", "upgrade"] {
            XCTAssertFalse(head(["Connection": value]).userClose, "\(value) is not the close option")
        }
    }

    func testAHeadWrittenOverAnotherIsTheHeadWrittenAloneAndASharedOneIsNotTouched() {
        var reused = Array(repeating: UInt8(ascii: "x"), count: 300)
        let shared = reused
        let cases: [(status: Int, headers: HTTPHeaders, body: String, close: Bool, http10KeepAlive: Bool)] = [
            (200, ["Content-Type": "application/json", "ETag": "\"12\""], #"{"a":1}"#, false, false),
            (404, ["Content-Type": "application/problem+json"], "{}", true, false),
            (204, ["Allow": "GET"], "", false, true),
            (200, ["Connection": "close", "X-A": "1"], "ok", false, true),  // the handler's close, in 1.0
            (201, ["Connection": "keep-alive, close"], "", false, false),
            (418, HTTPHeaders([("X-Bad", "a\r\nb"), ("Content-Length", "7"), ("X-Long", String(repeating: "v", count: 500))]), "body", false, false),
        ]
        for c in cases {
            let alone = ResponseEncoder.encode(status: c.status, headers: c.headers, body: Array(c.body.utf8), omitBody: false,
                                               close: c.close, http10KeepAlive: c.http10KeepAlive, dateLine: date)
            let over = ResponseEncoder.encode(status: c.status, headers: c.headers, body: Array(c.body.utf8), omitBody: false,
                                              close: c.close, http10KeepAlive: c.http10KeepAlive, dateLine: date, into: &reused)
            XCTAssertEqual(String(decoding: reused, as: UTF8.self), String(decoding: alone.head, as: UTF8.self), "\(c.status)")
            XCTAssertEqual(over.userClose, alone.userClose, "\(c.status)")
        }
        XCTAssertEqual(shared, Array(repeating: UInt8(ascii: "x"), count: 300))
    }

    private func encoded(_ response: HTTPResponse) -> String {
        let encoded = ResponseEncoder.encode(status: response.status, headers: response.headers, headersChecked: response.headersChecked,
                                             body: response.body, omitBody: false, close: false, http10KeepAlive: false, dateLine: date)
        return String(decoding: encoded.head, as: UTF8.self)
    }

    func testCheckedFieldsAreWrittenAsTheUncheckedOnesAre() {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "ETag": "\"3\"", "Vary": "Origin"]
        var response = HTTPResponse(status: 200, headers: headers, body: Array("{}".utf8))
        let unchecked = encoded(response)
        XCTAssertTrue(response.checkHeaders())
        XCTAssertTrue(response.headersChecked)
        XCTAssertEqual(encoded(response), unchecked)
        XCTAssertTrue(unchecked.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"3\"\r\nVary: Origin\r\n"))
    }

    func testFieldsThatWouldSplitTheAnswerOrAreTheEnginesAreNeverMarkedChecked() {
        let refused: [(String, String)] = [("X-Bad", "a\r\nSet-Cookie: x=1"), ("Bad Name", "v"), ("content-length", "9"),
                                           ("Connection", "close"), ("Date", "yesterday"), ("Transfer-Encoding", "chunked")]
        for (name, value) in refused {
            var response = HTTPResponse(status: 200, headers: HTTPHeaders([("X-Good", "1"), (name, value)]), body: Array("ok".utf8))
            XCTAssertFalse(response.checkHeaders(), name)
            XCTAssertFalse(response.headersChecked, name)
            // The handler's field is dropped; a `Connection: close` is the engine's own line.
            let written = encoded(response).components(separatedBy: "\(name): \(value)").count - 1
            XCTAssertEqual(written, name == "Connection" ? 1 : 0, name)
        }
    }

    func testAFieldAddedAfterTheCheckIsCheckedWhenSent() {
        var response = HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("ok".utf8))
        XCTAssertTrue(response.checkHeaders())
        response.headers.add("X-Bad", "a\r\nSet-Cookie: x=1")
        XCTAssertFalse(response.headersChecked)
        XCTAssertEqual(encoded(response), "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: Sun, 22 Nov 2026 00:00:00 GMT\r\n"
                       + "Content-Length: 2\r\n\r\nok")
    }
}
