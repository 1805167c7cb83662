import XCTest
@testable import HTTPEngine

final class OutboundQueueTests: XCTestCase {
    /// Sends of any size across segment boundaries leave exactly the unsent bytes, in order.
    func testConsumeLeavesTheUnsentBytesInOrder() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var queue = OutboundQueue()
            var expected: [UInt8] = []
            for _ in 0..<Int.random(in: 1...40, using: &rng) {
                let segment = (0..<Int.random(in: 0...50, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                queue.append(segment)
                expected += segment
            }
            while !queue.isEmpty {
                let n = Int.random(in: 1...queue.byteCount, using: &rng)
                queue.consume(n)
                expected.removeFirst(n)
                XCTAssertEqual(queue.byteCount, expected.count)
                let unsent = queue.segments.isEmpty ? [] : Array(queue.segments[0][queue.offset...]) + queue.segments.dropFirst().flatMap { $0 }
                XCTAssertEqual(unsent, expected)
            }
            XCTAssertEqual(queue.segments.count, 0)
            XCTAssertEqual(queue.offset, 0)
        }
    }

    /// A lone segment the socket took whole comes back as it was and leaves the queue empty.
    func testTakeSentSingleHandsBackTheSegmentAndEmpties() {
        var queue = OutboundQueue()
        queue.append([1, 2, 3])
        XCTAssertEqual(queue.takeSentSingle(), [1, 2, 3])
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(queue.segments.count, 0)
        XCTAssertEqual(queue.offset, 0)
        queue.append([4])
        XCTAssertEqual(queue.byteCount, 1)
    }
}
