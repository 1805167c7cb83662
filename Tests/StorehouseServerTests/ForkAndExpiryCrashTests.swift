import Foundation
@testable import StorehouseServer
import Synchronization
import XCTest

/// docs/API.md "Operators" and "Lifecycle": a SIGKILL while sessions are forked and while
/// sessions expire loses no acknowledged fork and leaves no half-made session. After every
/// restart each acknowledged fork is there whole (version 0, `forkedFrom`, the origin's state at
/// the fork's version), the origin is untouched, and every listed session reads back.
///
/// Rounds: `STOREHOUSE_FORK_CRASH_ROUNDS` (default 3).
final class ForkAndExpiryCrashTests: XCTestCase {
    private let actions = 80
    private let forkVersion = 50

    func testASIGKILLDuringForksAndExpiriesLeavesEachSessionWholeOrAbsent() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["STOREHOUSE_FORK_CRASH_ROUNDS"] ?? "") ?? 3
        let admin = OperatorRoutesTests.adminSecret
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["--data-dir", directory, "--fsync", "always", "--admin-token", admin]

        // The origin, and its state at the version every fork takes.
        var originID = "", forkedState: NSDictionary?
        do {
            let server = try ServerProcess(arguments: arguments)
            try server.waitUntilReady()
            let client = try TestClient(port: server.port)
            let created = try client.request("POST", "/sessions", body: #"{"kind":"shop"}"#)
            originID = try XCTUnwrap(created.json["id"] as? String)
            for n in 0..<actions {
                let posted = try client.request("POST", "/sessions/\(originID)/actions", headers: bearer(admin),
                                                body: #"{"type":"shop/add","payload":"p\#(n)"}"#)
                XCTAssertEqual(posted.status, 200)
            }
            forkedState = try client.request("GET", "/sessions/\(originID)/state?version=\(forkVersion)", headers: bearer(admin))
                .json["state"] as? NSDictionary
            XCTAssertNotNil(forkedState)
            server.kill(SIGTERM)
        }

        let acknowledged = Mutex<Set<String>>([])
        var generator = SystemRandomNumberGenerator()
        for round in 1...rounds + 1 {
            let server = try ServerProcess(arguments: arguments)
            try server.waitUntilReady()
            try verify(port: server.port, admin: admin, origin: originID, forks: acknowledged.withLock { $0 },
                       state: forkedState, round: round)
            if round > rounds {
                server.kill(SIGTERM)
                break
            }
            let workers = DispatchGroup()
            let (port, origin, version) = (server.port, originID, forkVersion)
            for _ in 0..<2 {
                DispatchQueue.global().async(group: workers) {
                    guard let client = try? TestClient(port: port) else { return }
                    let body = #"{"from":{"id":"\#(origin)","version":\#(version)}}"#
                    while true {
                        guard let answer = try? client.request("POST", "/sessions", headers: bearer(admin), body: body) else { return }
                        if answer.status == 201, let id = answer.json["id"] as? String { acknowledged.withLock { _ = $0.insert(id) } }
                    }
                }
            }
            // Sessions that expire a second after their last action, all through the round.
            DispatchQueue.global().async(group: workers) {
                guard let client = try? TestClient(port: port) else { return }
                while true {
                    guard let created = try? client.request("POST", "/sessions", body: #"{"kind":"shop","ttlSeconds":1}"#),
                          let id = created.json["id"] as? String,
                          (try? client.request("POST", "/sessions/\(id)/actions", headers: bearer(admin),
                                               body: #"{"type":"shop/add","payload":"t"}"#)) != nil else { return }
                }
            }
            usleep(UInt32.random(in: 1_200_000...1_800_000, using: &generator))
            server.kill(SIGKILL)
            workers.wait()
        }
        XCTAssertGreaterThan(acknowledged.withLock { $0.count }, rounds, "forks were answered before each kill")
    }

    /// The origin is whole, every acknowledged fork is listed and whole, and every listed session
    /// (an expiring one included) reads back.
    private func verify(port: Int, admin: String, origin: String, forks: Set<String>, state: NSDictionary?, round: Int) throws {
        let client = try TestClient(port: port)
        var listed: [String: [String: Any]] = [:]
        var cursor: String?
        repeat {
            let page = try client.request("GET", "/sessions?limit=1000" + (cursor.map { "&cursor=\($0)" } ?? ""), headers: bearer(admin))
            XCTAssertEqual(page.status, 200, page.text)
            for session in page.json["sessions"] as? [[String: Any]] ?? [] {
                if let id = session["id"] as? String { listed[id] = session }
            }
            cursor = page.json["next"] as? String
        } while cursor != nil
        XCTAssertEqual(listed[origin]?["version"] as? Int, actions, "round \(round): the origin")
        let lost = forks.subtracting(listed.keys)
        XCTAssertTrue(lost.isEmpty, "round \(round): acknowledged forks lost: \(lost.sorted().prefix(3))")
        for id in forks.sorted().prefix(5) where listed[id] != nil {
            let meta = try client.request("GET", "/sessions/\(id)", headers: bearer(admin))
            XCTAssertEqual(meta.json["forkedFrom"] as? NSDictionary, ["id": origin, "version": forkVersion] as NSDictionary,
                           "round \(round): \(id)")
            let read = try client.request("GET", "/sessions/\(id)/state", headers: bearer(admin))
            XCTAssertEqual(read.json["version"] as? Int, 0, "round \(round): \(id)")
            XCTAssertEqual(read.json["state"] as? NSDictionary, state, "round \(round): \(id)")
        }
        for id in listed.keys.sorted() where id != origin && !forks.contains(id) {
            let read = try client.request("GET", "/sessions/\(id)/state", headers: bearer(admin))
            XCTAssertTrue([200, 404].contains(read.status), "round \(round): \(id) answered \(read.status): \(read.text)")
        }
    }
}
