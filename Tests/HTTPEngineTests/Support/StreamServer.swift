import XCTest
@testable import HTTPEngine

/// Streams opened by a test server's handler, on whichever I/O thread.
final class Streams: @unchecked Sendable {  // guarded by its lock
    let lock = NSLock()
    var list: [HTTPStream] = []
    func add(_ s: HTTPStream) { lock.lock(); list.append(s); lock.unlock() }
    var all: [HTTPStream] { lock.lock(); defer { lock.unlock() }; return list }
    func removeAll() { lock.lock(); list = []; lock.unlock() }
}

extension XCTestCase {
    /// Starts a server whose every request opens a stream, sends it `count` GETs on as many
    /// connections, and returns once the handler has opened every stream: the server, the streams
    /// (in the order they opened) and the clients (their responses not read yet).
    func openStreams(_ count: Int, clientTimeoutSeconds: Int = 5,
                     _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> (HTTPServer, [HTTPStream], [RawClient]) {
        let streams = Streams()
        let opened = expectation(description: "streams opened")
        opened.expectedFulfillmentCount = count
        let server = try startServer(configure, handler: { _, responder in
            streams.add(responder.startStream(status: 200, headers: [:]))
            opened.fulfill()
        })
        var clients: [RawClient] = []
        for _ in 0..<count {
            let client = try RawClient(port: server.port, timeoutSeconds: clientTimeoutSeconds)
            client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            clients.append(client)
        }
        wait(for: [opened], timeout: 10)
        return (server, streams.all, clients)
    }
}
