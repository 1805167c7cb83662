import Foundation
import StoreCore
import StoreKinds
@testable import StorehouseServer
import XCTest

/// A running server on a free port for one test, in memory unless a data directory is given.
final class ServerFixture {
    let server: Storehouse
    var port: Int { server.port }

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }, environment: EffectEnvironment = .immediate,
         fanOutQueue: DispatchQueue = .global(), log: (any SessionLog)? = nil, kinds: KindRegistry = .shipped,
         now: @escaping @Sendable () -> Int64 = SessionContext.wallClock) throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemory = true
        configuration.accessLog = false
        configure(&configuration)
        server = try Storehouse(configuration: configuration, effectEnvironment: environment, fanOutQueue: fanOutQueue, log: log, kinds: kinds, now: now)
        try server.start()
    }

    deinit { server.shutdown() }

    func client() throws -> TestClient { try TestClient(port: port) }

    /// Creates a session and returns its id and token.
    func createSession(_ body: String = #"{"kind":"counter"}"#, file: StaticString = #filePath, line: UInt = #line) throws -> (id: String, token: String) {
        let response = try client().request("POST", "/sessions", body: body)
        XCTAssertEqual(response.status, 201, response.text, file: file, line: line)
        guard let id = response.json["id"] as? String, let token = response.json["token"] as? String else {
            throw TestClientError(description: "no id/token in \(response.text)")
        }
        return (id, token)
    }
}

func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

/// A fresh empty directory under the system's temporary folder.
func temporaryDirectory(_ name: String = #function) -> String {
    let path = NSTemporaryDirectory() + "storehouse-tests-\(name.filter(\.isLetter))-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

extension TestClient {
    /// POSTs `counter/incrTapped` to session `id` `times` times, each expected to succeed.
    func incrementCounter(_ id: String, _ token: String, times: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        for _ in 0..<times {
            let answer = try request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
            XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
        }
    }
}
