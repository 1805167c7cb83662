@testable import StorehouseClient
import XCTest

/// The event-stream parser against the line rules of WHATWG HTML 9.2.5/9.2.6.
final class ServerSentEventParserTests: XCTestCase {
    func testEventsSplitAnywhereAndAnyLineEndingGiveTheSameEvents() {
        let text = "retry: 2000\r\n\r\nevent: snapshot\rid: 0\ndata: {\"version\":0,\r\ndata: \"state\":{}}\n\n: keep-alive\n\nevent: output\ndata:x\n\n"
        let expected = [
            ServerSentEvent(event: "snapshot", data: "{\"version\":0,\n\"state\":{}}", id: "0", retry: 2000),
            ServerSentEvent(event: "output", data: "x"),
        ]
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var parser = ServerSentEventParser()
            let events = parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...])
            XCTAssertEqual(events, expected, "split at \(cut)")
        }
    }

    func testAnEventWithoutItsBlankLineIsNotDispatched() {
        var parser = ServerSentEventParser()
        XCTAssertEqual(parser.feed(Array("event: change\nid: 3\ndata: {}\n".utf8)), [])
        XCTAssertEqual(parser.feed(Array("\n".utf8)), [ServerSentEvent(event: "change", data: "{}", id: "3")])
    }
}
