import XCTest
@testable import HTTPEngine

/// The parser without sockets: every framing rule, and the same result however the bytes are sliced.
final class ParserTests: XCTestCase {
    func assertAllSlicings(_ text: String, _ expected: [ParseOutcome], limits: HTTPParserLimits = HTTPParserLimits(),
                           file: StaticString = #filePath, line: UInt = #line) {
        for slice in [0, 1, 2, 3, 7, 64] {
            XCTAssertEqual(drive(text, slice: slice, limits: limits), expected, "slice \(slice)", file: file, line: line)
        }
    }

    func testSimpleGetAndPipelining() {
        assertAllSlicings("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n", [
            .request(method: "GET", target: "/a?x=1", body: "", keepAlive: true),
            .request(method: "GET", target: "/b", body: "", keepAlive: true),
        ])
    }

    func testContentLengthBody() {
        assertAllSlicings("POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: h\r\n\r\n", [
            .request(method: "POST", target: "/e", body: "hello", keepAlive: true),
            .request(method: "GET", target: "/", body: "", keepAlive: true),
        ])
    }

    func testChunkedBodyWithExtensionsAndTrailers() {
        assertAllSlicings("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n6 ; x\r\n world\r\n0\r\nTrailer-A: 1\r\n\r\n", [
            .request(method: "POST", target: "/c", body: "hello world", keepAlive: true),
        ])
    }

    func testConnectionTokenListAndVersions() {
        assertAllSlicings("GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, Close\r\n\r\n", [.request(method: "GET", target: "/", body: "", keepAlive: false)])
        assertAllSlicings("GET / HTTP/1.0\r\n\r\n", [.request(method: "GET", target: "/", body: "", keepAlive: false)])
        assertAllSlicings("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", [.request(method: "GET", target: "/", body: "", keepAlive: true)])
    }

    func testBareLFAndLeadingEmptyLinesAccepted() {
        assertAllSlicings("\r\nGET / HTTP/1.1\nHost: h\n\n", [.request(method: "GET", target: "/", body: "", keepAlive: true)])
    }

    func testExpectContinueReportedBeforeBody() {
        assertAllSlicings("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok", [
            .expectContinue, .request(method: "POST", target: "/", body: "ok", keepAlive: true),
        ])
    }

    func testAsteriskFormIsForOPTIONS() {
        XCTAssertEqual(drive("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n"), [.request(method: "OPTIONS", target: "*", body: "", keepAlive: true)])
    }

    func testRegNameBytesAreUnreservedAndSubDelims() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=".utf8)
        for b in UInt8.min...UInt8.max {
            XCTAssertEqual(HTTPRequestParser.isRegNameByte(b), allowed.contains(b), "byte \(b)")
        }
    }

    func testTokenBytesAreTheTcharsOfRFC9110() {
        // RFC 9110 §5.6.2: tchar.
        let allowed = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for b in UInt8.min...UInt8.max {
            XCTAssertEqual(ASCII.isTokenChar(b), allowed.contains(b), "byte \(b)")
        }
    }

    func testTokenRunsEndWhereTheByteRuleEndsThemAtEveryPosition() {
        // Each byte value at each position of names of 1–20 bytes otherwise letters, digits and
        // `-`: the eight-byte scan must stop at the first byte that is not a tchar, and only there.
        let filler = Array("aZ9-".utf8)
        for length in 1...20 {
            for position in 0..<length {
                for b in UInt8.min...UInt8.max {
                    var bytes = (0..<length).map { filler[$0 % filler.count] }
                    bytes[position] = b
                    let expected = ASCII.isTokenChar(b) ? length : position
                    let end = bytes.withUnsafeBufferPointer { ASCII.tokenEnd($0.baseAddress!, from: 0, to: length) }
                    if end != expected { XCTFail("byte \(b) at \(position) of \(length): \(end)"); return }
                }
            }
        }
    }

    func testFieldValueWordsAgreeWithTheByteRuleAtEveryPosition() {
        // Each byte value at each position of strings of 1–24 bytes otherwise printable: the
        // eight-byte test must give the byte-by-byte verdict wherever the odd byte falls.
        for length in 1...24 {
            for position in 0..<length {
                for b in UInt8.min...UInt8.max {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = b
                    let expected = b == 0x09 || (b >= 0x20 && b != 0x7F)
                    let verdict = bytes.withUnsafeBufferPointer { ASCII.isFieldValue($0) }
                    if verdict != expected { XCTFail("byte \(b) at \(position) of \(length)"); return }
                }
            }
        }
        var mixed: [UInt8] = Array("tab\there obs-text \u{e9}\u{fc} and ~ } { 0x20".utf8)
        XCTAssertTrue(mixed.withUnsafeBufferPointer { ASCII.isFieldValue($0) })
        mixed.append(0x7F)
        XCTAssertFalse(mixed.withUnsafeBufferPointer { ASCII.isFieldValue($0) })
        XCTAssertTrue([UInt8]().withUnsafeBufferPointer { ASCII.isFieldValue($0) })
    }

    func testALongHeaderLineHoldsAtMostTwiceItsSizeInTheRequest() {
        // A request is kept until it is answered (on the journal's thread under --fsync always), so
        // what its header block holds is per request in flight, pipelined ones included.
        let head = "GET / HTTP/1.1\r\nX-A: \(String(repeating: "y", count: 15_000))\r\nHost: h\r\n\r\n"
        var parser = HTTPRequestParser()
        let bytes = Array(head.utf8)
        let (_, event) = bytes.withUnsafeBufferPointer { parser.parse($0) }
        guard case .request(let request) = event else { return XCTFail("\(event)") }
        XCTAssertEqual(request.headers["x-a"]?.count, 15_000)
        XCTAssertLessThanOrEqual(request.headers.reservedBytes, 2 * (15_000 + 64))
    }

    func testHostValuesThatAreURIHostAndPort() {
        for host in ["h", "example.com:8080", "127.0.0.1:1", "[::1]", "[::1]:80", "[v1.x]", "ex%41mple", "a_b-c~d", "h:", ""] {
            XCTAssertEqual(drive("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n"), [.request(method: "GET", target: "/", body: "", keepAlive: true)], host)
        }
    }

    func testRefusals() {
        let cases: [(String, Int)] = [
            ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400),                                  // two spaces
            ("GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400),                                 // method not a token
            ("GET / HTTX/1.1\r\nHost: h\r\n\r\n", 400),
            ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
            ("GET nothing HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("GET /state#access_token=t HTTP/1.1\r\nHost: h\r\n\r\n", 400),         // no fragment (RFC 9112 §3.2)
            ("GET / HTTP/1.1\r\nBad Name: v\r\nHost: h\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nName : v\r\nHost: h\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{01}b\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  folded\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400),                       // bare CR
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501), // understood: chunked only
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400), // length unknowable
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400), // chunked once at most
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding:\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 400),
            ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\n\r\n", 400),                                              // no Host
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            // RFC 9112 §3.2: a Host that is not uri-host [":" port].
            ("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: x/y?z\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h:8o\r\n\r\n", 400),
            ("GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400),                                  // asterisk-form: OPTIONS only
            ("GET / HTTP/1.1\r\nHost: a:1:2\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h%4\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: user@h\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000\r\n\r\n", 413),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ]
        for (text, status) in cases {
            for slice in [0, 1, 5] {
                XCTAssertEqual(drive(text, slice: slice).last, .error(status), "\(text.debugDescription) slice \(slice)")
            }
        }
    }

    func testIdenticalContentLengthsAccepted() {
        assertAllSlicings("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nab", [
            .request(method: "POST", target: "/", body: "ab", keepAlive: true),
        ])
    }

    func testLimits() {
        let limits = HTTPParserLimits(maxHeaderBytes: 200, maxHeaderCount: 3, maxTargetBytes: 50, maxBodyBytes: 10)
        let longTarget = "GET /" + String(repeating: "a", count: 60) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        XCTAssertEqual(drive(longTarget, limits: limits), [.error(414)])
        // Without the line end the target is refused as soon as it cannot fit, not buffered forever.
        XCTAssertEqual(drive("GET /" + String(repeating: "a", count: 500), limits: limits), [.error(414)])
        XCTAssertEqual(drive("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 300) + "\r\n\r\n", limits: limits), [.error(431)])
        XCTAssertEqual(drive("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 300), limits: limits), [.error(431)])
        XCTAssertEqual(drive("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits), [.error(431)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n", limits: limits), [.error(413)])
    }

    /// Found by the fuzzer: a long method followed by a long target gave 414 whole but 400 byte by byte.
    func testLongRequestLineVerdictDoesNotDependOnSlicing() {
        let limits = HTTPParserLimits(maxHeaderBytes: 256, maxHeaderCount: 8, maxTargetBytes: 64, maxBodyBytes: 128)
        let line = "G" + String(repeating: "a", count: 60) + " /" + String(repeating: "b", count: 100) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        for slice in [0, 1, 2, 50] { XCTAssertEqual(drive(line, slice: slice, limits: limits), [.error(414)], "slice \(slice)") }
        // The CR of CRLF is not part of the target, even while the LF has not arrived.
        let exact = "GET /" + String(repeating: "c", count: 63) + "\r\nHost: h\r\n\r\n"
        for slice in [0, 1, 69] { XCTAssertEqual(drive(exact, slice: slice, limits: limits), [.error(400)], "slice \(slice)") }
        let longMethod = String(repeating: "M", count: 70) + " / HTTP/1.1\r\nHost: h\r\n\r\n"
        for slice in [0, 1, 9] { XCTAssertEqual(drive(longMethod, slice: slice, limits: limits), [.error(400)], "slice \(slice)") }
    }

    func testQueryItemsDecode() {
        let request = HTTPRequest(method: "GET", target: "/p/a%20b?x=1&name=J%C3%B6rg+M&flag&e=")
        XCTAssertEqual(request.path, "/p/a%20b")
        XCTAssertEqual(request.query, "x=1&name=J%C3%B6rg+M&flag&e=")
        let items = request.queryItems()
        XCTAssertEqual(items.map(\.name), ["x", "name", "flag", "e"])
        XCTAssertEqual(items.map(\.value), ["1", "Jörg M", "", ""])
        XCTAssertEqual(HTTPRequest(method: "GET", target: "http://h:1/z?q").path, "/z")
        XCTAssertEqual(HTTPRequest(method: "GET", target: "/bad%zz%").queryItems().count, 0)
    }

    /// The parser finds an origin-form target's query while it checks the target; the path and
    /// query it hands over are those the request finds for itself from the same target.
    func testParsedTargetsSplitAsTheRequestSplitsThem() {
        for target in ["/a/b?x=1&y", "/a?", "/a", "/?q", "/a??b", "/s/x/actions", "http://h:1/z?q", "*"] {
            let method = target == "*" ? "OPTIONS" : "GET"
            var parser = HTTPRequestParser()
            let bytes = Array("\(method) \(target) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
            let (_, event) = bytes.withUnsafeBufferPointer { parser.parse($0) }
            guard case .request(let parsed) = event else { return XCTFail("\(target): \(event)") }
            let built = HTTPRequest(method: method, target: target)
            XCTAssertEqual(parsed.path, built.path, target)
            XCTAssertEqual(parsed.query, built.query, target)
        }
    }

    /// The parser keeps its buffers for the next request; a request still held keeps its own
    /// headers and body whatever the parser reads next, with a body or without.
    func testARequestStillHeldKeepsItsHeadersAndBodyWhileTheParserReadsOn() {
        var parser = HTTPRequestParser()
        func next(_ text: String) -> HTTPRequest? {
            let bytes = Array(text.utf8)
            guard case .request(let request) = bytes.withUnsafeBufferPointer({ parser.parse($0) }).event else { return nil }
            return request
        }
        let first = next("POST /a HTTP/1.1\r\nHost: h\r\nX-One: 1\r\nContent-Length: 5\r\n\r\nfirst")
        let second = next("POST /b HTTP/1.1\r\nHost: h\r\nX-Two: 2\r\nContent-Length: 3\r\n\r\nsec")
        let third = next("GET /c HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(first?.body, Array("first".utf8))
        XCTAssertEqual(first?.headers["X-One"], "1")
        XCTAssertNil(first?.headers["X-Two"])
        XCTAssertEqual(second?.body, Array("sec".utf8))
        XCTAssertEqual(second?.headers["X-Two"], "2")
        XCTAssertEqual(second?.headers.count, 3)
        XCTAssertEqual(third?.body, [])
        XCTAssertEqual(third?.headers.count, 1)
        // Once the earlier requests are gone, the buffers are reused and still start empty.
        let fourth = next("POST /d HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertEqual(fourth?.body, Array("ok".utf8))
        XCTAssertEqual(fourth?.headers.count, 2)
    }

    func testHeadersCaseInsensitive() {
        var headers = HTTPHeaders()
        headers.add("X-One", "1")
        headers.add("x-one", "2")
        XCTAssertEqual(headers["X-ONE"], "1")
        XCTAssertEqual(headers.values("x-One"), ["1", "2"])
        headers.set("X-ONE", "3")
        XCTAssertEqual(headers.values("x-one"), ["3"])
    }

    /// Arbitrary bytes never trap and give the same verdict however they are sliced.
    func testRandomBytesAreSafeAndSliceIndependent() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("GET POST / HTTP/1.1\r\n:Host: Content-Length: 3 Transfer-Encoding: chunked 0 a ;\t".utf8) + [0, 0x7F, 0xFF]
        for _ in 0..<500 {
            let n = Int.random(in: 0..<200, using: &rng)
            let bytes = (0..<n).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
            let whole = drive(bytes)
            XCTAssertEqual(drive(bytes, slice: 1), whole)
            XCTAssertEqual(drive(bytes, slice: 13), whole)
        }
    }
}

/// The head of a parsed request is one buffer: the target's bytes, then the fields. What the
/// request hands out from it must be what it would have held as strings.
final class ParsedHeadTests: XCTestCase {
    func parse(_ text: String) -> HTTPRequest? {
        var parser = HTTPRequestParser()
        let bytes = Array(text.utf8)
        guard case .request(let request) = bytes.withUnsafeBufferPointer({ parser.parse($0) }).event else { return nil }
        return request
    }

    func testTheTargetIsNotAField() {
        let request = parse("GET /s/abc/state?x=1 HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\r\n")
        XCTAssertEqual(request?.target, "/s/abc/state?x=1")
        XCTAssertEqual(request?.path, "/s/abc/state")
        XCTAssertEqual(request?.query, "x=1")
        XCTAssertEqual(request?.headers.count, 2)
        XCTAssertEqual(request?.headers.map(\.name), ["Host", "X-A"])
        XCTAssertEqual(request?.headers.map(\.value), ["h", "1"])
        XCTAssertEqual(request?.withTargetBytes { Array($0) }, Array("/s/abc/state?x=1".utf8))
    }

    func testATargetSetLaterReplacesTheParsedOneAndKeepsTheFields() {
        guard var request = parse("GET /a?b HTTP/1.1\r\nHost: h\r\n\r\n") else { return XCTFail("no request") }
        request.target = "/other/path?q=2"
        XCTAssertEqual(request.target, "/other/path?q=2")
        XCTAssertEqual(request.path, "/other/path")
        XCTAssertEqual(request.query, "q=2")
        XCTAssertEqual(request.headers["host"], "h")
        request.headers.add("X-New", "v")
        XCTAssertEqual(request.target, "/other/path?q=2")
    }

    func testFieldsAddedToAParsedRequestKeepItsTarget() {
        guard var request = parse("GET /keep HTTP/1.1\r\nHost: h\r\n\r\n") else { return XCTFail("no request") }
        request.headers.add("X-B", "2")
        request.headers.remove("Host")
        XCTAssertEqual(request.target, "/keep")
        XCTAssertEqual(request.headers.map(\.name), ["X-B"])
    }

    func testLookupsIgnoreCaseAndValuesAreTrimmedOfWhitespace() {
        let request = parse("POST /p HTTP/1.1\r\nhOsT: h\r\nCONTENT-TYPE:\t application/json \t\r\nAuthorization: Bearer t0k\r\nContent-Length: 2\r\n\r\n{}")
        XCTAssertEqual(request?.headers["Content-Type"], "application/json")
        XCTAssertEqual(request?.headers["content-type"], "application/json")
        XCTAssertEqual(request?.headers["AUTHORIZATION"], "Bearer t0k")
        XCTAssertEqual(request?.headers["host"], "h")
        XCTAssertEqual(request?.headers.map(\.name), ["hOsT", "CONTENT-TYPE", "Authorization", "Content-Length"])
        XCTAssertEqual(request?.body, Array("{}".utf8))
    }

    func testObsTextInAValueIsKeptByteForByte() {
        // RFC 9110 §5.5: obs-text (0x80–0xFF) is allowed in a field value; it reaches the caller
        // as the bytes sent, and as a string the way String(decoding:) reads them.
        var bytes = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Name: J".utf8)
        let value: [UInt8] = [UInt8(ascii: "J"), 0xC3, 0xB6, 0xFF, UInt8(ascii: "g")]
        bytes += value.dropFirst() + Array("\r\n\r\n".utf8)
        var parser = HTTPRequestParser()
        guard case .request(let request) = bytes.withUnsafeBufferPointer({ parser.parse($0) }).event else { return XCTFail("refused") }
        XCTAssertEqual(request.headers.withValue("x-name") { Array($0) }, value)
        XCTAssertEqual(request.headers["X-Name"], String(decoding: value, as: UTF8.self))
    }

    func testFramingNamesMatchInAnyCaseAndOnlyThoseNames() {
        // Names as long as a framing field's but another, and a framing name in odd case.
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\ncOnTeNt-LeNgTh: 2\r\n\r\nok"),
                       [.request(method: "POST", target: "/", body: "ok", keepAlive: true)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Lengtx: 2\r\n\r\nok"),
                       [.request(method: "POST", target: "/", body: "", keepAlive: true)], "no body: \"ok\" starts the next request")
        XCTAssertEqual(drive("GET / HTTP/1.1\r\nHosu: h\r\n\r\n"), [.error(400)], "no Host")
        XCTAssertEqual(drive("GET / HTTP/1.1\r\nHOST: h\r\nconnection: CLOSE\r\n\r\n"),
                       [.request(method: "GET", target: "/", body: "", keepAlive: false)])
        XCTAssertEqual(drive("GET / HTTP/1.1\r\nHost: h\r\nConnectiom: close\r\n\r\n"),
                       [.request(method: "GET", target: "/", body: "", keepAlive: true)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nTRANSFER-ENCODING: Chunked\r\n\r\n0\r\n\r\n"),
                       [.request(method: "POST", target: "/", body: "", keepAlive: true)])
        // `^` with bit 5 set is `~`, `_` is DEL: neither may pass for a letter or `-`.
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent^Length: 2\r\n\r\n"),
                       [.request(method: "POST", target: "/", body: "", keepAlive: true)])
    }

    func testContentLengthDigitsReadAtOnceAgreeWithTheListRule() {
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0003\r\n\r\nabc"),
                       [.request(method: "POST", target: "/", body: "abc", keepAlive: true)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"),
                       [.request(method: "POST", target: "/", body: "abc", keepAlive: true)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"), [.error(400)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3, 4\r\n\r\nabcd"), [.error(400)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 999999999999999999\r\n\r\n"), [.error(413)])
        XCTAssertEqual(drive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3 \r\n\r\nabc"),
                       [.request(method: "POST", target: "/", body: "abc", keepAlive: true)])
    }

    func testTargetsWithEveryVisibleByteAtEveryWordPosition() {
        // The target is read eight bytes at a time: a `?`, a `#` or a byte that is not visible
        // ASCII must be seen wherever it falls in a word.
        for length in 1...20 {
            for position in 0..<length {
                for b: UInt8 in [0x21, 0x23, 0x3F, 0x7E, 0x7F, 0x80, 0xFF, 0x09, 0x00, 0x0B] {
                    var target = Array(repeating: UInt8(ascii: "a"), count: length)
                    target[0] = UInt8(ascii: "/")
                    if position > 0 { target[position] = b }
                    let bytes = Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
                    let outcome = drive(bytes)
                    let text = String(decoding: target, as: UTF8.self)
                    let visible = target.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
                    let expected: [ParseOutcome] = visible && !target.contains(0x23)
                        ? [.request(method: "GET", target: text, body: "", keepAlive: true)] : [.error(400)]
                    XCTAssertEqual(outcome, expected, "\(target)")
                    if case .request = outcome.first, let q = target.firstIndex(of: 0x3F) {
                        var parser = HTTPRequestParser()
                        guard case .request(let r) = bytes.withUnsafeBufferPointer({ parser.parse($0) }).event else { return XCTFail() }
                        XCTAssertEqual(r.path, String(decoding: target[..<q], as: UTF8.self))
                        XCTAssertEqual(r.query, String(decoding: target[(q + 1)...], as: UTF8.self))
                    }
                }
            }
        }
    }

    func testValueBytesAtEveryWordPosition() {
        // A value is read eight bytes at a time up to the first byte that is not in it: HTAB and
        // obs-text are in it wherever they fall, a control byte or DEL never is.
        for length in 1...20 {
            for position in 0..<length {
                for b: UInt8 in [0x09, 0x20, 0x7E, 0x80, 0xFF, 0x7F, 0x00, 0x0D, 0x1F] {
                    var value = Array(repeating: UInt8(ascii: "v"), count: length)
                    value[position] = b
                    let bytes = Array("GET / HTTP/1.1\r\nHost: h\r\nX-V: ".utf8) + value + Array("\r\nX-W: w\r\n\r\n".utf8)
                    var parser = HTTPRequestParser()
                    let event = bytes.withUnsafeBufferPointer { parser.parse($0) }.event
                    let allowed = b == 0x09 || (b >= 0x20 && b != 0x7F)
                    switch event {
                    case .request(let request) where allowed:
                        var trimmed = value[...]
                        while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed = trimmed.dropLast() }
                        while let first = trimmed.first, first == 0x20 || first == 0x09 { trimmed = trimmed.dropFirst() }
                        XCTAssertEqual(request.headers.withValue("x-v") { Array($0) }, Array(trimmed), "\(value)")
                        XCTAssertEqual(request.headers["x-w"], "w")
                    case .error(let error) where !allowed:
                        XCTAssertEqual(error.status, 400)
                    default:
                        XCTFail("\(value): \(event)")
                    }
                }
            }
        }
    }

    /// What a parser makes of `bytes` fed whole or a byte at a time: each request's fields, or the error.
    func fields(_ bytes: [UInt8], byteByByte: Bool) -> [String] {
        var parser = HTTPRequestParser()
        var pending: [UInt8] = []
        var outcomes: [String] = []
        for chunk in byteByByte ? bytes.map { [$0] } : [bytes] {
            pending += chunk
            while true {
                let (consumed, event) = pending.withUnsafeBufferPointer { parser.parse($0) }
                pending.removeFirst(consumed)
                switch event {
                case .request(let r): outcomes.append(r.headers.map { "\($0.name)=\($0.value)" }.joined(separator: "|")); continue
                case .error(let e): outcomes.append("\(e)"); return outcomes
                case .expectContinue: outcomes.append("100"); continue
                case .needMore: break
                }
                break
            }
        }
        return outcomes
    }

    func testCommonNamesReadByWordsAgreeWithTheByteRule() {
        // Whole, the common names are matched a word at a time; a byte at a time, fewer than 16
        // bytes are ever at hand and each name is read byte by byte. Any byte at any position of
        // the name or its colon must get the same fields or the same error either way.
        let names = ["Host", "Content-Length", "Content-Type", "Connection", "Authorization", "Accept-Encoding", "Accept",
                     "User-Agent", "Idempotency-Key"]
        for name in names {
            for position in 0...name.utf8.count {
                for b in UInt8.min...UInt8.max {
                    var line = Array(name.utf8) + [UInt8(ascii: ":")]
                    line[position] = b
                    let head = Array("GET / HTTP/1.1\r\n\(name == "Host" ? "" : "Host: h\r\n")".utf8)
                    let bytes = head + line + Array(" 0\r\nX-Pad: 0123456789abcdef\r\n\r\n".utf8)
                    let whole = fields(bytes, byteByByte: false)
                    let single = fields(bytes, byteByByte: true)
                    if whole != single { return XCTFail("\(name) byte \(b) at \(position): \(whole) vs \(single)") }
                }
            }
            let spelled = fields(Array("GET / HTTP/1.1\r\n\(name == "Host" ? "" : "Host: h\r\n")\(name.uppercased()): 0\r\nX-Pad: 0123456789abcdef\r\n\r\n".utf8), byteByByte: false)
            XCTAssertTrue(spelled.first?.contains("\(name.uppercased())=0") ?? false, "\(spelled)")
        }
    }

    func testAnLFInsideTheVersionEndsTheRequestLineThere() {
        // Read straight off the input, the version is at a known place; an LF inside it still
        // ends the line (RFC 9112 §2.2), so the line is consumed only up to that LF.
        var parser = HTTPRequestParser()
        let bytes = Array("GET / HT\nP/1.1\r\nHost: h\r\n\r\n".utf8)
        let (consumed, event) = bytes.withUnsafeBufferPointer { parser.parse($0) }
        guard case .error(let error) = event else { return XCTFail("\(event)") }
        XCTAssertEqual(error.detail, "malformed HTTP version")
        XCTAssertEqual(consumed, 9)
    }
}
