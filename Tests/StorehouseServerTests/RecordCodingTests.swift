import StoreCore
import XCTest
@testable import StorehouseServer

/// The server's journal record bytes: round trip, and damage is an error, never a trap.
final class RecordCodingTests: XCTestCase {
    func testRoundTripWithPayloadMetaAndIdempotencyMark() throws {
        let record = ActionRecord(type: "tasks/rename", payload: .object(["id": .int(3), "title": .string("é/~")]),
                                  meta: .object(["trace": .string("x")]), at: 1_790_000_000_123, source: .effect)
        let mark = RecordCoding.IdempotencyMark(key: "key-1", bodyHash: SHA256.hash(Array("body".utf8)), firstVersion: 41, minimal: true)
        let (decoded, decodedMark, _) = try RecordCoding.decodeJournalRecord(RecordCoding.journalRecord(record, mark: mark))
        XCTAssertEqual(decoded, record)
        XCTAssertEqual(decodedMark?.key, "key-1")
        XCTAssertEqual(decodedMark?.bodyHash, mark.bodyHash)
        XCTAssertEqual(decodedMark?.firstVersion, 41)
        XCTAssertEqual(decodedMark?.minimal, true)
    }

    func testRoundTripWithoutPayload() throws {
        let record = ActionRecord(type: "counter/incrTapped", at: 5, source: .client)
        let bytes = RecordCoding.journalRecord(record, mark: nil)
        let (decoded, mark, refusals) = try RecordCoding.decodeJournalRecord(bytes)
        XCTAssertEqual(decoded, record)
        XCTAssertNil(mark)
        XCTAssertEqual(refusals, [])
        // 1 format + 1 source + 8 at + 4 + 18 type + 4 payload + 4 meta + 1 mark flag: no refusal
        // section, the bytes of the format before there were refusals.
        XCTAssertEqual(bytes.count, 41)
    }

    func testRoundTripWithKeptRefusals() throws {
        let record = ActionRecord(type: "counter/incrTapped", at: 5, source: .client)
        let refusals = [RecordCoding.KeptRefusal(key: "k1", bodyHash: SHA256.hash(Array("a".utf8)), version: 3, minimal: false,
                                                 createdAt: 1_790_000_000_000, status: 409, body: Array(#"{"type":"/problems/action-rejected"}"#.utf8)),
                        RecordCoding.KeptRefusal(key: "k2", bodyHash: SHA256.hash(Array("b".utf8)), version: 4, minimal: true,
                                                 createdAt: 7, status: 422, body: [])]
        let mark = RecordCoding.IdempotencyMark(key: "k3", bodyHash: SHA256.hash(Array("c".utf8)), firstVersion: 5, minimal: false)
        let bytes = RecordCoding.journalRecord(record, mark: mark, refusals: refusals)
        let (decoded, decodedMark, decodedRefusals) = try RecordCoding.decodeJournalRecord(bytes)
        XCTAssertEqual(decoded, record)
        XCTAssertEqual(decodedMark?.key, "k3")
        XCTAssertEqual(decodedRefusals, refusals)
        // Cut right before the refusals it is a record without them (the journal's checksum is what
        // tells a cut record); anywhere else, an error.
        let withoutRefusals = RecordCoding.journalRecord(record, mark: mark).count
        for length in 0..<bytes.count where length != withoutRefusals {
            XCTAssertThrowsError(try RecordCoding.decodeJournalRecord(Array(bytes[..<length])), "length \(length)")
        }
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

    /// The bytes recovery reads, field by field as `journalRecord` documents them: every server
    /// that wrote a journal must still be read after the encoder changes.
    func testBytesAreTheDocumentedFormat() {
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        let record = ActionRecord(type: "t", payload: .string("x"), at: 0x0102, source: .effect)
        let mark = RecordCoding.IdempotencyMark(key: "k", bodyHash: [UInt8](repeating: 0xAB, count: 32), firstVersion: 5, minimal: true)
        let refusal = RecordCoding.KeptRefusal(key: "r", bodyHash: [1, 2], version: 6, minimal: false, createdAt: 7, status: 409,
                                               body: Array("{}".utf8))
        var expected: [UInt8] = [1, 1] + le(UInt64(0x0102)) + le(UInt32(1)) + Array("t".utf8) + le(UInt32(3)) + Array(#""x""#.utf8)
        expected += le(UInt32.max) + [1] + le(UInt32(1)) + Array("k".utf8) + [UInt8](repeating: 0xAB, count: 32) + le(UInt64(5)) + [1]
        expected += le(UInt32(1)) + le(UInt32(1)) + Array("r".utf8) + [UInt8](repeating: 0, count: 32) + le(UInt64(6)) + [0]
        expected += le(UInt64(7)) + le(UInt16(409)) + le(UInt32(2)) + Array("{}".utf8)
        XCTAssertEqual(RecordCoding.journalRecord(record, mark: mark, refusals: [refusal]), expected)
        let plain = ActionRecord(type: "counter/incrTapped", at: 5, source: .client)
        XCTAssertEqual(RecordCoding.journalRecord(plain, mark: nil),
                       [1, 0] + le(UInt64(5)) + le(UInt32(18)) + Array("counter/incrTapped".utf8) + le(UInt32.max) + le(UInt32.max) + [0])
    }
}
