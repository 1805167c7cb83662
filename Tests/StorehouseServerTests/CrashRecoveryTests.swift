import Foundation
import Synchronization
import XCTest

/// Issue 5: SIGKILL the server at random moments under concurrent writers; after every restart
/// each acknowledged action is there exactly once and no batch is half-applied.
///
/// Rounds: `STOREHOUSE_CRASH_ROUNDS` (default 20).
final class CrashRecoveryTests: XCTestCase {
    func testEveryAcknowledgedActionSurvivesSIGKILL() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["STOREHOUSE_CRASH_ROUNDS"] ?? "") ?? 20
        let directory = temporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        let acknowledged = Mutex<Set<String>>([])
        let batches = Mutex<[(String, String)]>([])
        var id = "", token = ""

        for round in 1...rounds {
            let server = try ServerProcess(arguments: ["--data-dir", directory, "--fsync", "always"])
            try server.waitUntilReady()
            if round == 1 {
                let created = try TestClient(port: server.port).request("POST", "/sessions", body: #"{"kind":"shop"}"#)
                id = created.json["id"] as? String ?? ""
                token = created.json["token"] as? String ?? ""
            }
            try verify(port: server.port, id: id, token: token, acknowledged: acknowledged.withLock { $0 }, batches: batches.withLock { $0 }, round: round)

            let writers = DispatchGroup()
            let (port, session, bearerToken) = (server.port, id, token)
            for writer in 0..<6 {
                DispatchQueue.global().async(group: writers) {
                    guard let client = try? TestClient(port: port) else { return }
                    var n = 0
                    while true {
                        n += 1
                        let name = "r\(round)-w\(writer)-\(n)"
                        let isBatch = n % 5 == 0
                        let body = isBatch ? #"[{"type":"shop/add","payload":"\#(name)a"},{"type":"shop/add","payload":"\#(name)b"}]"#
                                           : #"{"type":"shop/add","payload":"\#(name)"}"#
                        if isBatch { batches.withLock { $0.append((name + "a", name + "b")) } }
                        guard let response = try? client.request("POST", "/sessions/\(session)/actions", headers: bearer(bearerToken), body: body) else { return }
                        guard response.status == 200 else { continue }
                        acknowledged.withLock { set in
                            if isBatch { set.insert(name + "a"); set.insert(name + "b") } else { set.insert(name) }
                        }
                    }
                }
            }
            usleep(UInt32.random(in: 50_000...400_000, using: &generator))
            server.kill(SIGKILL)
            writers.wait()
        }
        let server = try ServerProcess(arguments: ["--data-dir", directory])
        try server.waitUntilReady()
        try verify(port: server.port, id: id, token: token, acknowledged: acknowledged.withLock { $0 }, batches: batches.withLock { $0 }, round: rounds + 1)
        XCTAssertGreaterThan(acknowledged.withLock { $0.count }, rounds, "the writers got answers before each kill")
        server.kill(SIGTERM)
    }

    private func verify(port: Int, id: String, token: String, acknowledged: Set<String>, batches: [(String, String)], round: Int) throws {
        let state = try TestClient(port: port).request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.status, 200, "round \(round): \(state.text)")
        let products = (state.json["state"] as? [String: Any])?["products"] as? [String] ?? []
        let version = state.json["version"] as? Int ?? -1
        XCTAssertEqual(products.count, version, "round \(round): every version is one applied add")
        let present = Set(products)
        XCTAssertEqual(present.count, products.count, "round \(round): an action was applied twice")
        let lost = acknowledged.subtracting(present)
        XCTAssertTrue(lost.isEmpty, "round \(round): acknowledged actions lost: \(lost.sorted().prefix(5))")
        for (a, b) in batches where present.contains(a) != present.contains(b) {
            XCTFail("round \(round): batch \(a)/\(b) half-applied")
        }
    }
}
