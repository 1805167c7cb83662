@testable import StorehouseServer
import Journal
import StoreKinds
import XCTest

/// `PackedSessionID` and `HibernatedSessions`: what the registry keeps of an idle session.
final class HibernatedSessionsTests: XCTestCase {
    func testPackedIDsRoundTripAndSortAsTheirStrings() {
        var ids = (0..<2_000).map { _ in Secrets.randomBase64URL(bytes: 16) }
        ids += ["a", "ab", "a-", "node1.x", String(repeating: "z", count: 64), "A", "_", "0"]
        let packed = ids.compactMap(PackedSessionID.init)
        XCTAssertEqual(packed.count, ids.count)
        XCTAssertEqual(packed.map(\.string), ids)
        XCTAssertEqual(packed.sorted().map(\.string), ids.sorted())
        XCTAssertNil(PackedSessionID(""))
        XCTAssertNil(PackedSessionID(String(repeating: "z", count: 65)))
    }

    func testARecordGivesBackTheSummaryItWasMadeFrom() throws {
        var table = HibernatedSessions()
        let hash = (0..<32).map { UInt8($0 * 7 + 3) }
        let fork = ForkOrigin(id: "origin", version: 4)
        let plain = SessionSummary(id: "s1", kind: KindRegistry.shipped.all[0], tokenHash: hash, version: 12, createdAt: 1_000,
                                   updatedAt: 2_000, lifetime: SessionLifetime(ttlSeconds: 0, lastActivity: 1_000), forkedFrom: nil)
        let forked = SessionSummary(id: "s2", kind: KindRegistry.shipped.all[2], tokenHash: hash.reversed(), version: 0, createdAt: 5_000,
                                    updatedAt: 5_000, lifetime: SessionLifetime(ttlSeconds: 30, lastActivity: 6_000), forkedFrom: fork)
        XCTAssertTrue(table.insert(plain, parked: nil))
        XCTAssertTrue(table.insert(forked, parked: nil))
        XCTAssertEqual(table.count, 2)
        for original in [plain, forked] {
            let back = try XCTUnwrap(table.summary(of: original.id))
            XCTAssertEqual(back.tokenHash, original.tokenHash)
            XCTAssertEqual(back.kind.name, original.kind.name)
            XCTAssertEqual([back.version, Int(back.createdAt), Int(back.updatedAt)],
                           [original.version, Int(original.createdAt), Int(original.updatedAt)])
            XCTAssertEqual(back.lifetime.expiresAt, original.lifetime.expiresAt)
            XCTAssertEqual(back.forkedFrom, original.forkedFrom)
            XCTAssertEqual(back.metadataJSON(), original.metadataJSON())
        }
        XCTAssertNil(table.parked("s1"))
        table.setParked("s1", ParkedSession(firstSegment: 2, lastSegment: 5))
        XCTAssertEqual(table.parked("s1"), ParkedSession(firstSegment: 2, lastSegment: 5))
        XCTAssertEqual(table.expired(at: 35_999).map(\.id), [])
        XCTAssertEqual(table.expired(at: 36_000).map(\.id), ["s2"])
        XCTAssertTrue(table.remove("s2"))
        XCTAssertEqual(table.expired(at: 100_000).map(\.id), [], "no record with a TTL is left")
        XCTAssertFalse(table.contains("s2"))
        XCTAssertTrue(table.contains("s1"))
    }

    func testARecordIsEightyBytesAndItsKeySixtyFour() {
        XCTAssertEqual(MemoryLayout<HibernatedSessions.Record>.stride, 80)
        XCTAssertEqual(MemoryLayout<PackedSessionID>.stride, 64)
        XCTAssertEqual(MemoryLayout<ParkedSession>.stride, 8)
    }

    func testAnIDThatDoesNotPackIsNotTaken() {
        var table = HibernatedSessions()
        let summary = SessionSummary(id: String(repeating: "x", count: 65), kind: KindRegistry.shipped.all[0], tokenHash: Array(repeating: 1, count: 32),
                                     version: 1, createdAt: 0, updatedAt: 0, lifetime: SessionLifetime(ttlSeconds: 0, lastActivity: 0), forkedFrom: nil)
        XCTAssertFalse(table.insert(summary, parked: nil))
        XCTAssertTrue(table.isEmpty)
    }
}
