import Foundation
import XCTest

/// The `storehouse` executable itself: signals, exit status, flags.
final class ProcessLifecycleTests: XCTestCase {
    /// Under a low descriptor limit every session created is served and survives a restart: the
    /// journal keeps its descriptors within its budget. Each created session used to keep one, and
    /// creations were refused 503 once the limit was reached (the 241st here).
    func testManySessionsUnderALowDescriptorLimit() throws {
        let directory = temporaryDirectory()
        let server = try ServerProcess(arguments: ["--data-dir", directory], descriptorLimit: 256)
        try server.waitUntilReady()
        let client = try TestClient(port: server.port)
        var sessions: [(id: String, token: String)] = []
        for i in 0..<300 {
            let created = try client.request("POST", "/sessions")
            guard created.status == 201 else { XCTFail("session \(i): \(created.status) \(created.text)"); break }
            let id = created.json["id"] as? String ?? "", token = created.json["token"] as? String ?? ""
            XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#).status, 200)
            sessions.append((id, token))
        }
        server.kill(SIGTERM)
        let again = try ServerProcess(arguments: ["--data-dir", directory], descriptorLimit: 256)
        try again.waitUntilReady()
        let reader = try TestClient(port: again.port)
        for (id, token) in sessions {
            XCTAssertEqual(try reader.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 1, id)
        }
        again.kill(SIGTERM)
    }

    func testSIGTERMEndsStreamsAnswersAndExitsZero() throws {
        let directory = temporaryDirectory()
        let server = try ServerProcess(arguments: ["--data-dir", directory])
        try server.waitUntilReady()
        let created = try TestClient(port: server.port).request("POST", "/sessions")
        let id = created.json["id"] as? String ?? "", token = created.json["token"] as? String ?? ""
        XCTAssertEqual(try TestClient(port: server.port).request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#).status, 200)
        let events = try TestClient(port: server.port)
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent(); _ = try events.nextEvent()

        let started = Date()
        kill(server.process.processIdentifier, SIGTERM)
        let end = try events.nextEvent()
        XCTAssertEqual(end.event, "end")
        XCTAssertEqual(end.json["reason"] as? String, "shutdown")
        server.process.waitUntilExit()
        XCTAssertEqual(server.process.terminationReason, .exit)
        XCTAssertEqual(server.process.terminationStatus, 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)

        let again = try ServerProcess(arguments: ["--data-dir", directory])
        try again.waitUntilReady()
        XCTAssertEqual(try TestClient(port: again.port).request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 1)
        again.kill(SIGTERM)
    }

    func testInvalidFlagStopsTheStartWithOneLineNamingIt() throws {
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = ["--fsync", "sometimes"]
        let pipe = Pipe()
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertNotEqual(process.terminationStatus, 0)
        XCTAssertTrue(text.contains("--fsync"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 1, text)
    }

    func testRestoredStartingStateSurvivesSIGKILL() throws {
        let directory = temporaryDirectory()
        let server = try ServerProcess(arguments: ["--data-dir", directory])
        try server.waitUntilReady()
        let created = try TestClient(port: server.port).request("POST", "/sessions",
            body: #"{"kind":"tasks","state":{"tasks":{"byId":{"7":{"id":7,"title":"kept","done":false}},"allIds":[7]},"favoriteIds":[],"nextId":8}}"#)
        XCTAssertEqual(created.status, 201)
        let id = created.json["id"] as? String ?? "", token = created.json["token"] as? String ?? ""
        let toggled = try TestClient(port: server.port).request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tasks/toggleDone","payload":{"id":7}}"#)
        XCTAssertEqual(toggled.status, 200, toggled.text)
        server.kill(SIGKILL)

        let again = try ServerProcess(arguments: ["--data-dir", directory])
        try again.waitUntilReady()
        let state = try TestClient(port: again.port).request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.text, #"{"version":1,"state":{"tasks":{"byId":{"7":{"id":7,"title":"kept","done":true}},"allIds":[7]},"favoriteIds":[],"nextId":8}}"#)
        again.kill(SIGTERM)
    }

    func testSIGTERMTheMomentTheServerListensIsNeverLost() throws {
        for _ in 0..<10 {
            let server = try ServerProcess(arguments: ["--in-memory"])
            let started = Date()
            kill(server.process.processIdentifier, SIGTERM)
            server.process.waitUntilExit()
            XCTAssertEqual(server.process.terminationReason, .exit)
            XCTAssertEqual(server.process.terminationStatus, 0)
            XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        }
    }
}
