import XCTest
@testable import HTTPEngine

/// One chunk to many streams: every stream gets it, whichever loop owns it and wherever its
/// stream falls in the batches the loops are woken with.
final class StreamFanOutTests: XCTestCase {
    var server: HTTPServer?

    override func tearDown() {
        server?.shutdown()
        server?.waitUntilStopped()
        server = nil
    }

    func testEveryStreamOnEveryLoopGetsEachFannedOutChunk() throws {
        // Not a multiple of the batch size: each loop is left with a partial batch, handed over
        // only when the fan-out ends.
        let count = 2 * StreamFanOut.batchSize + 45
        let (s, streams, clients) = try openStreams(count, clientTimeoutSeconds: 2)
        server = s
        for client in clients { XCTAssertEqual(client.readResponse(head: true)?.status, 200) }
        XCTAssertEqual(Set(streams.map { ObjectIdentifier($0.loop) }).count, 2, "the streams should span both loops")

        for text in ["first", "second"] {
            var fanOut = StreamFanOut()
            let chunk = SharedChunk(Array(text.utf8))
            for stream in streams { XCTAssertEqual(fanOut.write(chunk, to: stream, ifPendingAtMost: 1 << 20), .queued) }
        }
        for (i, client) in clients.enumerated() {
            XCTAssertEqual(client.readChunk().map { String(decoding: $0, as: UTF8.self) }, "first", "client \(i)")
            XCTAssertEqual(client.readChunk().map { String(decoding: $0, as: UTF8.self) }, "second", "client \(i)")
        }
    }

    func testWriteKeepsTheStreamsBoundAndRefusals() throws {
        let (s, streams, clients) = try openStreams(1)
        server = s
        let stream = try XCTUnwrap(streams.first), client = try XCTUnwrap(clients.first)
        // Settled first: once the client has a chunk, no pull from the stream's start is still
        // due, which could take the first chunk below before the second is checked.
        XCTAssertEqual(client.readResponse(head: true)?.status, 200)
        XCTAssertTrue(stream.write(Array("settled".utf8)))
        XCTAssertEqual(client.readChunk().map { String(decoding: $0, as: UTF8.self) }, "settled")
        do {
            var fanOut = StreamFanOut()
            // Nothing pending: queued whatever its size; then the next one is over a bound of 8.
            XCTAssertEqual(fanOut.write(SharedChunk(Array("0123456789".utf8)), to: stream, ifPendingAtMost: 8), .queued)
            XCTAssertEqual(fanOut.write(SharedChunk(Array("x".utf8)), to: stream, ifPendingAtMost: 8), .overBound)
            stream.finish()
            XCTAssertEqual(fanOut.write(SharedChunk(Array("y".utf8)), to: stream, ifPendingAtMost: .max), .refused)
        }
        XCTAssertEqual(client.readChunkedBody().map { String(decoding: $0, as: UTF8.self) }, "0123456789", "the rest of the stream, to its end")
    }
}
