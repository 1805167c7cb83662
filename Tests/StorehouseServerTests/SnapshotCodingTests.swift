import HTTPEngine
@testable import StorehouseServer
import XCTest

final class SnapshotCodingTests: XCTestCase {
    /// A kept refusal is in memory only: nothing about it is journaled, and written into a snapshot
    /// it would come back after a restart as a success whose answer is rendered from history.
    func testASnapshotCarriesTheKeysOfSuccessesNotOfRefusals() throws {
        var cache = IdempotencyCache()
        cache.insert("ok", .init(bodyHash: [1], firstVersion: 1, lastVersion: 1, minimal: false, createdAt: 10,
                                 response: HTTPResponse(status: 200), durable: true))
        cache.insert("no", .init(bodyHash: [2], firstVersion: 1, lastVersion: 1, minimal: false, createdAt: 11,
                                 response: HTTPResponse(status: 409), durable: true, refusal: true))
        let decoded = try SnapshotCoding.decode(SnapshotCoding.encode(version: 1, state: Array("{}".utf8), updatedAt: 12, idempotency: cache))
        XCTAssertEqual(decoded.idempotency.map(\.key), ["ok"])
        XCTAssertEqual(decoded.idempotency.first?.entry.bodyHash, [1])
    }
}
