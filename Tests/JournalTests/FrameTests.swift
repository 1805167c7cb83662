@testable import Journal
import XCTest

final class FrameTests: XCTestCase {
    /// A snapshot is written as `header` then its bytes: together they must be the frame
    /// `append` makes, which recovery parses.
    func testHeaderThenPayloadIsTheFrameAppendMakes() {
        for payload in [[], Array("{\"version\":3}".utf8), (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }] {
            var frame: [UInt8] = []
            Frame.append(kind: .snapshot, version: 123_456_789, payload: payload, to: &frame)
            XCTAssertEqual(Frame.header(kind: .snapshot, version: 123_456_789, payload: payload) + payload, frame)
            guard case .success(let parsed) = frame.withUnsafeBytes({ Frame.parse($0, at: 0) }) else { return XCTFail("the frame does not parse") }
            XCTAssertEqual(parsed.version, 123_456_789)
            XCTAssertEqual(Array(frame[parsed.payload]), payload)
        }
    }
}
