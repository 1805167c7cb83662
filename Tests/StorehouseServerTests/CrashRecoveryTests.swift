import Foundation
import Synchronization
import XCTest

/// Issue 5: SIGKILL the server at random moments under concurrent writers; after every restart
/// each acknowledged action is there exactly once and no batch is half-applied.
///
/// A big `tasks` session (30,000 tasks, batches of 250 more) is written besides: with
/// `--history 1000` it writes a snapshot every 1,000 versions, so kills land during snapshots of
/// a large state too.
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
        let bigAcknowledged = Mutex<Set<String>>([])
        let bigBatches = Mutex<[(String, String)]>([])
        let bigRefusals = Mutex<[String]>([])
        var big = (id: "", token: "")

        for round in 1...rounds {
            let server = try ServerProcess(arguments: ["--data-dir", directory, "--fsync", "always", "--history", "1000"])
            try server.waitUntilReady()
            if round == 1 {
                let created = try TestClient(port: server.port).request("POST", "/sessions", body: #"{"kind":"shop"}"#)
                id = created.json["id"] as? String ?? ""
                token = created.json["token"] as? String ?? ""
                big = try fillBigSession(port: server.port)
            }
            try verify(port: server.port, id: id, token: token, acknowledged: acknowledged.withLock { $0 }, batches: batches.withLock { $0 }, round: round)
            try verifyBig(port: server.port, big, acknowledged: bigAcknowledged.withLock { $0 }, batches: bigBatches.withLock { $0 }, round: round)

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
            let bigSession = big
            // Its own thread: the six writers above already hold the pool's threads.
            writers.enter()
            Thread.detachNewThread {
                defer { writers.leave() }
                guard let client = try? TestClient(port: port) else { return }
                var n = 0
                while true {
                    n += 1
                    let titles = (0..<250).map { "r\(round)-big\(n)-\($0)" }
                    let body = "[" + titles.map { #"{"type":"tasks/add","payload":{"title":"\#($0)"}}"# }.joined(separator: ",") + "]"
                    bigBatches.withLock { $0.append((titles[0], titles[249])) }
                    let response: TestResponse
                    do {
                        response = try client.request("POST", "/sessions/\(bigSession.id)/actions",
                                                      headers: bearer(bigSession.token).merging(["Prefer": "return=minimal"]) { a, _ in a }, body: body)
                    } catch {
                        bigRefusals.withLock { $0.append("\(error)") }
                        return
                    }
                    guard response.status == 200 else { bigRefusals.withLock { $0.append(response.text) }; continue }
                    bigAcknowledged.withLock { $0.formUnion(titles) }
                }
            }
            usleep(UInt32.random(in: 50_000...400_000, using: &generator))
            server.kill(SIGKILL)
            writers.wait()
        }
        let server = try ServerProcess(arguments: ["--data-dir", directory])
        try server.waitUntilReady()
        try verify(port: server.port, id: id, token: token, acknowledged: acknowledged.withLock { $0 }, batches: batches.withLock { $0 }, round: rounds + 1)
        try verifyBig(port: server.port, big, acknowledged: bigAcknowledged.withLock { $0 }, batches: bigBatches.withLock { $0 }, round: rounds + 1)
        XCTAssertGreaterThan(acknowledged.withLock { $0.count }, rounds, "the writers got answers before each kill")
        XCTAssertGreaterThan(bigAcknowledged.withLock { $0.count }, 0, "the big session's writer got answers: \(bigRefusals.withLock { $0.prefix(3) })")
        server.kill(SIGTERM)
    }

    /// A tasks session with 30,000 tasks, added in batches of 1,000 (`--history` bounds a batch).
    private func fillBigSession(port: Int) throws -> (id: String, token: String) {
        let client = try TestClient(port: port)
        let created = try client.request("POST", "/sessions", body: #"{"kind":"tasks"}"#)
        let session = (id: created.json["id"] as? String ?? "", token: created.json["token"] as? String ?? "")
        for batch in 0..<30 {
            let body = "[" + (0..<1_000).map { #"{"type":"tasks/add","payload":{"title":"seed-\#(batch)-\#($0)"}}"# }.joined(separator: ",") + "]"
            let answer = try client.request("POST", "/sessions/\(session.id)/actions", headers: bearer(session.token).merging(["Prefer": "return=minimal"]) { a, _ in a }, body: body)
            XCTAssertEqual(answer.status, 200, answer.text)
        }
        return session
    }

    /// Every acknowledged add is there, once; no batch is half there; every version is one add.
    private func verifyBig(port: Int, _ session: (id: String, token: String), acknowledged: Set<String>, batches: [(String, String)], round: Int) throws {
        let answer = try TestClient(port: port).request("GET", "/sessions/\(session.id)/state", headers: bearer(session.token))
        XCTAssertEqual(answer.status, 200, "round \(round): \(answer.text.prefix(300))")
        let state = answer.json["state"] as? [String: Any] ?? [:]
        let tasks = state["tasks"] as? [String: Any] ?? [:]
        let byId = tasks["byId"] as? [String: [String: Any]] ?? [:]
        let allIds = tasks["allIds"] as? [Int] ?? []
        XCTAssertGreaterThanOrEqual(allIds.count, 30_000, "round \(round)")
        XCTAssertEqual(allIds.count, answer.json["version"] as? Int, "round \(round): every version is one applied add")
        XCTAssertEqual(allIds.count + 1, state["nextId"] as? Int, "round \(round)")
        let titles = Set(byId.values.compactMap { $0["title"] as? String })
        XCTAssertEqual(titles.count, allIds.count, "round \(round): an add was applied twice")
        let lost = acknowledged.subtracting(titles)
        XCTAssertTrue(lost.isEmpty, "round \(round): acknowledged adds lost: \(lost.sorted().prefix(5))")
        for (first, last) in batches where titles.contains(first) != titles.contains(last) {
            XCTFail("round \(round): batch \(first)…\(last) half-applied")
        }
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
