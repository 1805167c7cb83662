import HTTPEngine
@testable import StorehouseServer
import SessionCore
import StoreCore
import StoreKinds
import XCTest

final class SnapshotCodingTests: XCTestCase {
    /// Keys come back in the order the cache evicts them, also those set in the same millisecond
    /// (sorted by time they came back in a dictionary's order: a restart then evicted live keys).
    func testASnapshotKeepsTheKeysInEvictionOrder() throws {
        var cache = IdempotencyCache()
        let keys = (0..<60).map { "k\($0)" }
        for (i, key) in keys.enumerated() {
            cache.insert(key, .init(bodyHash: [1], firstVersion: i + 1, lastVersion: i + 1, minimal: false, createdAt: 10,
                                    response: nil, durable: true))
        }
        let decoded = try SnapshotCoding.decode(SnapshotCoding.encode(version: 60, state: Array("{}".utf8), updatedAt: 12, idempotency: cache))
        XCTAssertEqual(decoded.idempotency.map(\.key), keys)
    }

    /// A snapshot keeps every key, and a kept refusal with its answer byte for byte (history cannot
    /// render a refusal again): without it, a refused request retried after a restart was applied.
    func testASnapshotCarriesTheKeysOfSuccessesAndRefusalsWithTheirAnswers() throws {
        var cache = IdempotencyCache()
        cache.insert("ok", .init(bodyHash: [1], firstVersion: 1, lastVersion: 1, minimal: false, createdAt: 10,
                                 response: HTTPResponse(status: 200), durable: true))
        let problem = Problem(409, "action-rejected", "1 is not prime \"é\"").response()
        cache.insert("no", .init(bodyHash: [2], firstVersion: 1, lastVersion: 1, minimal: true, createdAt: 11,
                                 response: problem, durable: true, refusal: true))
        cache.insert("later", .init(bodyHash: [3], firstVersion: 2, lastVersion: 2, minimal: false, createdAt: 12,
                                    response: problem, durable: true, refusal: true))
        let decoded = try SnapshotCoding.decode(SnapshotCoding.encode(version: 1, state: Array("{}".utf8), updatedAt: 12, idempotency: cache))
        XCTAssertEqual(decoded.idempotency.map(\.key), ["ok", "no"], "a key decided after the snapshot's version is not in it")
        let ok = try XCTUnwrap(decoded.idempotency.first?.entry)
        XCTAssertFalse(ok.refusal)
        XCTAssertNil(ok.response, "a success's answer is rendered again from history")
        let refusal = try XCTUnwrap(decoded.idempotency.last?.entry)
        XCTAssertTrue(refusal.refusal)
        XCTAssertTrue(refusal.minimal)
        XCTAssertEqual(refusal.bodyHash, [2])
        XCTAssertEqual(refusal.createdAt, 11)
        XCTAssertEqual(refusal.response?.status, 409)
        XCTAssertEqual(refusal.response?.body, problem.body)
        XCTAssertEqual(refusal.response?.headers["Content-Type"], "application/problem+json")
    }
}

extension SnapshotCodingTests {
    /// Recovery reads a snapshot's state through the kind straight from the bytes: the state it
    /// reads is the one encoded, members in any order; a cut or damaged snapshot is an error that
    /// says where (the session is then reported damaged), never a crash.
    func testAKindReadsTheStateStraightFromTheSnapshot() throws {
        let tasks = try XCTUnwrap(KindRegistry.shipped.kind(named: "tasks"))
        let store = try tasks.makeStore(state: nil, version: 0, environment: .immediate)
        let records = (1...40).map { ActionRecord(type: "tasks/add", payload: .object(["title": .string("t \($0) \"é\" 🎉")]), at: 1_000, source: .client) }
        _ = try store.apply(records)
        let state = store.encodeState()
        let bytes = SnapshotCoding.encode(version: 40, state: state, updatedAt: 12, idempotency: IdempotencyCache())
        let read = { (bytes: [UInt8]) throws in try SnapshotCoding.decode(bytes) { (r) throws(StateDecodingError) in try tasks.readState(from: &r) } }
        let decoded = try read(bytes)
        XCTAssertEqual(decoded.version, 40)
        XCTAssertEqual(decoded.updatedAt, 12)
        XCTAssertEqual(decoded.state.encode(), state)
        let reordered = Array(#"{"state":"#.utf8) + state + Array(#", "idempotency":[],"updatedAt":12,"version":40}"#.utf8)
        XCTAssertEqual(try read(reordered).state.encode(), state)
        for cut in stride(from: 0, to: bytes.count, by: 7) {
            XCTAssertThrowsError(try read(Array(bytes[..<cut])), "cut at \(cut)") { error in
                XCTAssertTrue("\(error)".contains("byte") || "\(error)".contains("not a session snapshot"), "\(error)")
            }
        }
        // A task's `false` made `xalse`: the error names the task and the byte.
        let needle = Array(#""done":false"#.utf8)
        let at = try XCTUnwrap((0...(bytes.count - needle.count)).last { Array(bytes[$0..<($0 + needle.count)]) == needle })
        var damaged = bytes
        damaged[at + 7] = UInt8(ascii: "x")
        XCTAssertThrowsError(try read(damaged)) { XCTAssertTrue("\($0)".contains("/state/tasks/byId/40/done: expected a boolean, got unexpected character 'x' at byte"), "\($0)") }
    }
}
