import Foundation
import XCTest
import Glibc
@testable import HTTPEngine

/// The listening sockets: one per I/O thread through SO_REUSEPORT, and still a port of its own.
final class ListenerTests: XCTestCase {
    func testASecondServerOnAPortInUseFailsToStartAndTakesNoConnections() throws {
        let first = try startServer(handler: echoHandler)
        defer { first.shutdown(); first.waitUntilStopped() }
        for ioThreads in [1, 2] {
            var config = HTTPServerConfiguration()
            config.port = first.port
            config.ioThreads = ioThreads
            let second = HTTPServer(configuration: config, handler: HTTPHandlerClosure { _, responder in
                responder.respond(HTTPResponse(status: 500, body: Array("second".utf8)))
            })
            XCTAssertThrowsError(try second.start(), "\(ioThreads) I/O threads") { error in
                guard case HTTPServerError.system("bind", EADDRINUSE)? = error as? HTTPServerError else {
                    return XCTFail("\(error)")
                }
            }
        }
        // Every connection still reaches the first server.
        for _ in 0..<20 {
            let client = try RawClient(port: first.port)
            client.send("GET /ok HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            XCTAssertEqual(client.readResponse()?.text, "path=/ok")
        }
    }

    func testTheSamePortIsFreeAgainOnceTheServerStopped() throws {
        let first = try startServer(handler: echoHandler)
        let port = first.port
        let client = try RawClient(port: port)
        client.send("GET /ok HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.text, "path=/ok")
        first.shutdown()
        first.waitUntilStopped()
        // The server's side of that connection may be in TIME_WAIT; SO_REUSEADDR lets the port go.
        let again = try startServer({ $0.port = port }, handler: echoHandler)
        defer { again.shutdown(); again.waitUntilStopped() }
        XCTAssertEqual(again.port, port)
    }

    /// Each I/O thread carries its name in the kernel (`top -H`, `perf`, `/proc`), not only in
    /// Foundation's `Thread`. The names are set as the threads begin, so they are looked for until
    /// they appear.
    func testTheIOThreadsAreNamedForTheOperatingSystem() throws {
        let server = try startServer({ $0.ioThreads = 2 }, handler: echoHandler)
        defer { server.shutdown(); server.waitUntilStopped() }
        XCTAssertTrue(threadNamesAppear(["http-io-0", "http-io-1"]), "thread names: \(threadNames())")
    }
}

/// The kernel's names of this process's threads.
func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .newlines) }
}

/// Whether every name in `wanted` is a thread's within 5 s.
func threadNamesAppear(_ wanted: [String]) -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
        if Set(wanted).isSubset(of: threadNames()) { return true }
        usleep(1_000)
    }
    return false
}
