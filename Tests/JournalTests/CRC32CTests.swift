import XCTest
@testable import Journal

final class CRC32CTests: XCTestCase {
    func testKnownVectors() {
        // RFC 3720 §B.4 check value and test patterns.
        XCTAssertEqual(CRC32C.checksum(Array("123456789".utf8)), 0xE306_9283)
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0, count: 32)), 0x8A91_36AA)
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)), 0x62A8_AB43)
        XCTAssertEqual(CRC32C.checksum((0..<32).map { UInt8($0) }), 0x46DD_794E)
        XCTAssertEqual(CRC32C.checksum([]), 0)
    }

    func testContinuingEqualsWhole() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let a = CRC32C.checksum(Array(data[..<split]))
            XCTAssertEqual(CRC32C.checksum(Array(data[split...]), continuing: a), CRC32C.checksum(data), "split \(split)")
        }
    }
}
