import StoreCore
import XCTest
@testable import StorehouseServer

/// The server's journal record bytes: round trip, and damage is an error, never a trap.
final class RecordCodingTests: XCTestCase {
    func testRoundTripWithPayloadMetaAndIdempotencyMark() throws {
        let record = ActionRecord(type: "tasks/rename", payload: .object(["id": .int(3), "title": .string("é/~")]),
                                  meta: .object(["trace": .string("x")]), at: 1_790_000_000_123, source: .effect)
        let mark = RecordCoding.IdempotencyMark(key: "key-1", bodyHash: SHA256.hash(Array("body".utf8)), firstVersion: 41, minimal: true)
        let (decoded, decodedMark) = try RecordCoding.decodeJournalRecord(RecordCoding.journalRecord(record, mark: mark))
        XCTAssertEqual(decoded, record)
        XCTAssertEqual(decodedMark?.key, "key-1")
        XCTAssertEqual(decodedMark?.bodyHash, mark.bodyHash)
        XCTAssertEqual(decodedMark?.firstVersion, 41)
        XCTAssertEqual(decodedMark?.minimal, true)
    }

    func testRoundTripWithoutPayload() throws {
        let record = ActionRecord(type: "counter/incrTapped", at: 5, source: .client)
        let (decoded, mark) = try RecordCoding.decodeJournalRecord(RecordCoding.journalRecord(record, mark: nil))
        XCTAssertEqual(decoded, record)
        XCTAssertNil(mark)
    }

    func testEveryTruncationIsAnErrorNotATrap() {
        let bytes = RecordCoding.journalRecord(ActionRecord(type: "shop/add", payload: .string("milk"), at: 1, source: .client),
                                               mark: .init(key: "k", bodyHash: [UInt8](repeating: 7, count: 32), firstVersion: 1, minimal: false))
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try RecordCoding.decodeJournalRecord(Array(bytes[..<length])), "length \(length)")
        }
        var hugeLength = bytes
        hugeLength[10] = 0xFF; hugeLength[11] = 0xFF; hugeLength[12] = 0xFF; hugeLength[13] = 0x7F
        XCTAssertThrowsError(try RecordCoding.decodeJournalRecord(hugeLength))
    }
}
