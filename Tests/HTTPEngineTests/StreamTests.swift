import XCTest
import Synchronization
@testable import HTTPEngine

/// Streaming responses: framing, cross-thread writes, replacement, the client going away.
final class StreamTests: XCTestCase {
    var server: HTTPServer?

    override func tearDown() {
        server?.shutdown()
        server?.waitUntilStopped()
        server = nil
    }

    /// One stream (see `openStreams`), its server kept for `tearDown`.
    private func openStream(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> (HTTPStream, RawClient) {
        let (s, streams, clients) = try openStreams(1, configure)
        server = s
        return (try XCTUnwrap(streams.first), try XCTUnwrap(clients.first))
    }

    func testChunkedStreamFromAnotherThreadThenKeepAlive() throws {
        let s = try startServer(handler: { request, responder in
            guard request.path == "/s" else { return echoHandler(request, responder) }
            let stream = responder.startStream(status: 200, headers: ["Content-Type": "text/event-stream"])
            DispatchQueue.global().async {
                for i in 0..<5 { XCTAssertTrue(stream.write(Array("event \(i)\n\n".utf8))) }
                stream.finish()
                XCTAssertFalse(stream.write(Array("after".utf8)))
            }
        })
        server = s
        let client = try RawClient(port: s.port)
        client.send("GET /s HTTP/1.1\r\nHost: t\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(r.header("Connection"), "the connection stays open after the stream")
        XCTAssertEqual(r.text, (0..<5).map { "event \($0)\n\n" }.joined())
        client.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.text, "path=/next")
    }

    /// RFC 9112 §9.6: the last answer on a connection says "close"; a stream asked for with
    /// `Connection: close` is that answer, chunked or not, and HEAD's too.
    func testAStreamThatEndsTheConnectionSaysClose() throws {
        let s = try startServer(handler: { _, responder in
            let stream = responder.startStream(status: 200, headers: [:])
            stream.write(Array("abc".utf8))
            stream.finish()
        })
        server = s
        for method in ["GET", "HEAD"] {
            let client = try RawClient(port: s.port)
            client.send("\(method) / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let r = try XCTUnwrap(client.readResponse(head: method == "HEAD"), method)
            XCTAssertEqual(r.header("Transfer-Encoding"), "chunked", method)
            XCTAssertEqual(r.header("Connection"), "close", method)
            XCTAssertEqual(r.text, method == "HEAD" ? "" : "abc", method)
            XCTAssertTrue(client.isClosedByPeer(), method)
        }
    }

    func testHTTP10StreamIsCloseDelimited() throws {
        let s = try startServer(handler: { _, responder in
            let stream = responder.startStream(status: 200, headers: [:])
            stream.write(Array("abc".utf8))
            stream.write(Array("def".utf8))
            stream.finish()
        })
        server = s
        let client = try RawClient(port: s.port)
        client.send("GET / HTTP/1.0\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.header("Connection"), "close")
        XCTAssertEqual(r.text, "abcdef")
    }

    func testReplacePendingDropsQueuedChunks() throws {
        let (stream, client) = try openStream()
        XCTAssertNotNil(client.readResponse(head: true))
        // The client does not read: fill the socket until chunks stay queued, then replace them.
        let big = [UInt8](repeating: 0x61, count: 64 << 10)
        var writes = 0
        while stream.pendingBytes < (1 << 20) && writes < 400 { stream.write(big); writes += 1 }
        XCTAssertGreaterThan(stream.pendingBytes, 0)
        stream.replacePending(with: Array("SNAPSHOT".utf8))
        XCTAssertLessThan(stream.pendingBytes, 1 << 20)
        stream.finish()
        var body: [UInt8] = []
        while let chunk = client.readChunk() { body.append(contentsOf: chunk) }
        XCTAssertTrue(String(decoding: body.suffix(8), as: UTF8.self) == "SNAPSHOT")
        XCTAssertLessThan(body.count, writes * big.count, "some queued chunks were dropped")
    }

    func testDropPendingRunsItsBodyOnTheLoopOnceWhatWasInFlightIsSent() throws {
        let (stream, client) = try openStream()
        XCTAssertNotNil(client.readResponse(head: true))
        let caller = pthread_self()
        let ranOnCaller = Atomic(false)
        // Nothing in flight: the body still runs on the loop, never on the caller (who may hold a lock it takes).
        let idle = expectation(description: "idle stream drained")
        stream.dropPending {
            if pthread_equal(pthread_self(), caller) != 0 { ranOnCaller.store(true, ordering: .relaxed) }
            idle.fulfill()
        }
        wait(for: [idle], timeout: 5)
        XCTAssertFalse(ranOnCaller.load(ordering: .relaxed))
        // A client that does not read: the queue is dropped; the body runs once the socket has
        // taken what the loop had already taken for it (here, once the client reads).
        let big = [UInt8](repeating: 0x61, count: 64 << 10)
        var writes = 0
        while stream.pendingBytes < (1 << 20) && writes < 400 { stream.write(big); writes += 1 }
        let drained = expectation(description: "drained after the client read")
        stream.dropPending { drained.fulfill() }
        XCTAssertLessThan(stream.pendingBytes, 1 << 20, "the queued chunks were dropped")
        XCTAssertTrue(stream.write(Array("x".utf8)))
        stream.finish()
        var body: [UInt8] = []
        while let chunk = client.readChunk() { body.append(contentsOf: chunk) }
        wait(for: [drained], timeout: 5)
        XCTAssertLessThan(body.count, writes * big.count, "some queued chunks were dropped")
        XCTAssertEqual(body.last, UInt8(ascii: "x"), "what was written after the drop is sent")
    }

    func testProgressCountsWhatWasWrittenAndWhatTheSocketAccepted() throws {
        let (stream, client) = try openStream()
        XCTAssertNotNil(client.readResponse(head: true))
        XCTAssertTrue(stream.write(Array("abc".utf8)))
        XCTAssertEqual(stream.progress.written, 8, "3 CRLF abc CRLF")
        let drained = expectation(description: "drained")
        stream.onDrain { drained.fulfill() }
        wait(for: [drained], timeout: 5)
        XCTAssertEqual(stream.progress.accepted, 8)
        // Dropped chunks never had a position: what is written afterwards follows what was kept.
        let big = [UInt8](repeating: 0x61, count: 64 << 10)
        var writes = 0
        while stream.pendingBytes < (1 << 20) && writes < 400 { stream.write(big); writes += 1 }
        let before = stream.progress
        XCTAssertGreaterThan(before.written, before.accepted)
        stream.replacePending(with: Array("x".utf8))
        let after = stream.progress
        XCTAssertLessThan(after.written, before.written)
        XCTAssertEqual(after.written - after.accepted, stream.pendingBytes, "what is not accepted is what is pending")
        withExtendedLifetime(client) {}
    }

    func testBufferIsBoundedAndDrainIsSignalled() throws {
        let (stream, client) = try openStream { $0.maxStreamBufferBytes = 256 << 10 }
        // The client stays connected without reading: the bound, not a reset, must close the stream.
        defer { withExtendedLifetime(client) {} }
        let drained = expectation(description: "drained")
        XCTAssertTrue(stream.write(Array("small".utf8)))
        stream.onDrain { drained.fulfill() }
        wait(for: [drained], timeout: 5)
        XCTAssertEqual(stream.pendingBytes, 0)
        // The client stops reading: past the bound the stream is closed and writes say so.
        let closed = expectation(description: "closed")
        stream.onClose { closed.fulfill() }
        let chunk = [UInt8](repeating: 0x7A, count: 32 << 10)
        var accepted = 0
        while stream.write(chunk) && accepted < 10_000 { accepted += 1 }
        XCTAssertLessThan(accepted, 10_000)
        wait(for: [closed], timeout: 5)
        XCTAssertFalse(stream.write(chunk))
        XCTAssertTrue(stream.isClosed)
    }

    func testSharedChunkIsFramedPerStreamVersion() throws {
        let streams = Streams()
        let opened = expectation(description: "two streams")
        opened.expectedFulfillmentCount = 2
        let s = try startServer(handler: { _, responder in
            streams.add(responder.startStream(status: 200, headers: [:]))
            opened.fulfill()
        })
        server = s
        let chunked = try RawClient(port: s.port)
        chunked.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let raw = try RawClient(port: s.port)
        raw.send("GET / HTTP/1.0\r\n\r\n")
        wait(for: [opened], timeout: 5)
        // One chunk, framed once, written to an HTTP/1.1 (chunked) and an HTTP/1.0 (close-delimited) stream.
        let first = SharedChunk(Array("event: a\ndata: 1\n\n".utf8))
        let second = SharedChunk(Array(String(repeating: "x", count: 300).utf8))
        for stream in streams.all {
            XCTAssertTrue(stream.write(first))
            XCTAssertEqual(stream.write(second, ifPendingAtMost: 1 << 20), .queued)
            XCTAssertTrue(stream.write(SharedChunk([])))
            stream.finish()
        }
        let expected = "event: a\ndata: 1\n\n" + String(repeating: "x", count: 300)
        let r1 = try XCTUnwrap(chunked.readResponse())
        XCTAssertEqual(r1.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(r1.text, expected)
        let r2 = try XCTUnwrap(raw.readResponse())
        XCTAssertNil(r2.header("Transfer-Encoding"))
        XCTAssertEqual(r2.text, expected)
    }

    func testBoundedWriteQueuesNothingPastTheBound() throws {
        let (stream, client) = try openStream { $0.maxStreamBufferBytes = 64 << 20 }
        XCTAssertNotNil(client.readResponse(head: true))
        let a = SharedChunk(Array("a".utf8))
        let big = SharedChunk([UInt8](repeating: 0x62, count: 4096))
        XCTAssertEqual(stream.write(a, ifPendingAtMost: .max), .queued)
        let drained = expectation(description: "drained")
        stream.onDrain { drained.fulfill() }
        wait(for: [drained], timeout: 5)
        // Nothing pending: not behind, so a chunk larger than the bound still goes.
        XCTAssertEqual(stream.write(big, ifPendingAtMost: 1024), .queued)
        // The client stops reading: once bytes are pending, one that would pass the bound is not
        // queued, nor is anything of it, and the stream stays open (past the bound is the caller's call).
        // Chunks stay queued only once the socket is full (the loop takes more only when the socket
        // has accepted what it took), so from then on nothing moves until the client reads.
        let filler = [UInt8](repeating: 0x66, count: 64 << 10)
        var writes = 0
        while stream.queuedBytes < (1 << 20) && writes < 800 { stream.write(filler); writes += 1 }
        let pending = stream.pendingBytes
        XCTAssertEqual(stream.write(SharedChunk(Array("c".utf8)), ifPendingAtMost: pending), .overBound)
        XCTAssertEqual(stream.pendingBytes, pending)
        XCTAssertFalse(stream.isClosed)
        XCTAssertEqual(stream.write(SharedChunk(Array("c".utf8)), ifPendingAtMost: pending + 1_000), .queued)
        stream.finish()
        XCTAssertEqual(stream.write(a, ifPendingAtMost: .max), .refused)
        var body: [UInt8] = []
        while let chunk = client.readChunk() { body.append(contentsOf: chunk) }
        XCTAssertEqual(body.first, UInt8(ascii: "a"))
        XCTAssertEqual(body.count, 1 + 4096 + writes * filler.count + 1)
        XCTAssertEqual(body.last, UInt8(ascii: "c"))
    }

    func testBytesInFlightAloneDoNotCountAsFallingBehind() throws {
        let (stream, client) = try openStream { $0.maxStreamBufferBytes = 64 << 20 }
        XCTAssertNotNil(client.readResponse(head: true))
        // The client does not read: the loop takes this chunk and cannot send all of it (more than
        // both socket buffers hold), so it stays in flight with nothing queued behind it.
        XCTAssertEqual(stream.write(SharedChunk([UInt8](repeating: 0x61, count: 32 << 20)), ifPendingAtMost: 1_024), .queued)
        XCTAssertTrue(waitUntil { stream.queuedBytes == 0 }, "the loop took the chunk")
        XCTAssertGreaterThan(stream.pendingBytes, 1_024)
        // Nothing queued: the next chunk goes whatever is in flight (the loop marks bytes accepted
        // only after its send returns, when the client may already have read them).
        XCTAssertEqual(stream.write(SharedChunk(Array("b".utf8)), ifPendingAtMost: 1_024), .queued)
        // Queued behind the chunk in flight: now it is falling behind.
        XCTAssertEqual(stream.write(SharedChunk(Array("c".utf8)), ifPendingAtMost: 1_024), .overBound)
    }

    final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    func testStreamWrittenNonStopDoesNotStarveRequestsOnItsLoop() throws {
        let streams = Streams()
        let opened = expectation(description: "stream opened")
        // One I/O thread: the flooded stream and the request share the loop.
        let s = try startServer({ $0.ioThreads = 1 }, handler: { request, responder in
            guard request.path == "/flood" else { return echoHandler(request, responder) }
            streams.add(responder.startStream(status: 200, headers: [:]))
            opened.fulfill()
        })
        server = s
        let flood = try RawClient(port: s.port)
        flood.send("GET /flood HTTP/1.1\r\nHost: t\r\n\r\n")
        wait(for: [opened], timeout: 5)
        let stream = try XCTUnwrap(streams.all.first)
        let stop = Flag()
        let writerDone = expectation(description: "writer done")
        let readerDone = expectation(description: "reader done")
        // Another thread writes without pause (each write after a pull queues a new task for the loop)
        // and a reader drains the socket as fast as it can, so the loop always has stream work.
        let floodFD = flood.fd
        DispatchQueue.global().async {
            let chunk = [UInt8](repeating: 0x66, count: 1024)
            while !stop.raised.load(ordering: .relaxed) {
                if stream.pendingBytes > (4 << 20) { continue }
                if !stream.write(chunk) { break }
            }
            writerDone.fulfill()
        }
        DispatchQueue.global().async {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while !stop.raised.load(ordering: .relaxed) {
                if buffer.withUnsafeMutableBytes({ recv(floodFD, $0.baseAddress, $0.count, 0) }) <= 0 { break }
            }
            readerDone.fulfill()
        }
        XCTAssertTrue(waitUntil { stream.pendingBytes > 0 }, "the flood is on")
        // A request on the same loop is still read and answered while the stream keeps it busy.
        let ping = try RawClient(port: s.port, timeoutSeconds: 3)
        ping.send("GET /ping HTTP/1.1\r\nHost: t\r\n\r\n")
        let answer = ping.readResponse()
        XCTAssertFalse(stream.isClosed, "the stream was still being written while the request was answered")
        stop.raised.store(true, ordering: .relaxed)
        XCTAssertEqual(answer?.text, "path=/ping")
        stream.finish()
        wait(for: [writerDone], timeout: 5)
        flood.abort()
        wait(for: [readerDone], timeout: 5)
    }

    func testClientGoneIsNoticedAtOnce() throws {
        let closed = expectation(description: "onClose")
        let s = try startServer(handler: { _, responder in
            let stream = responder.startStream(status: 200, headers: [:])
            stream.onClose { closed.fulfill() }
        })
        server = s
        let client = try RawClient(port: s.port)
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertNotNil(client.readResponse(head: true))
        client.abort()
        wait(for: [closed], timeout: 2)
    }

    func testThousandStreamsKilledReturnDescriptorsAndMemory() throws {
        let streams = Streams()
        let s = try startServer(handler: { _, responder in
            let stream = responder.startStream(status: 200, headers: ["Content-Type": "text/event-stream"])
            stream.write(Array(": hello\n\n".utf8))
            streams.add(stream)
        })
        server = s
        func round() throws {
            let closed = expectation(description: "1000 onClose")
            closed.expectedFulfillmentCount = 1_000
            var clients: [RawClient] = []
            for _ in 0..<1_000 {
                let c = try RawClient(port: s.port)
                c.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
                clients.append(c)
            }
            for c in clients {
                XCTAssertEqual(c.readResponse(head: true)?.status, 200)
                XCTAssertNotNil(c.readChunk())
            }
            XCTAssertEqual(s.openConnections, 1_000)
            for stream in streams.all { stream.onClose { closed.fulfill() } }
            clients.removeAll()   // closes every client socket, as killing the process would
            wait(for: [closed], timeout: 10)
            streams.removeAll()
            XCTAssertTrue(waitUntil { s.openConnections == 0 })
        }
        try round()   // warms up tables and allocator arenas
        let fdsBefore = openDescriptorCount()
        let rssBefore = residentBytes()
        try round()
        XCTAssertTrue(waitUntil { openDescriptorCount() <= fdsBefore }, "fds \(openDescriptorCount()) vs \(fdsBefore)")
        let growth = residentBytes() - rssBefore
        XCTAssertLessThan(growth, 4 << 20, "RSS grew by \(growth) bytes")
    }
}
