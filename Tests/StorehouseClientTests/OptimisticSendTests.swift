import Foundation
import StoreCore
import StoreKinds
import StorehouseClient
import XCTest

/// Optimistic sends: the kind's reducer runs locally at once, the server's change settles it, a
/// refusal rolls it back.
final class OptimisticSendTests: XCTestCase {
    let counter: Kind<CounterAppState, CounterAppAction> = .counter

    func testAnOptimisticSendShowsAtOnceAndSettlesWhenTheServersChangeArrives() async throws {
        let live = try LiveServer()
        let (retries, retried) = AsyncStream<Int>.makeStream()
        let session = try await live.client(maxAttempts: 400, onRetry: { attempt, _ in retried.yield(attempt) }).createSession(counter)
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        defer { store.stop() }
        for await update in store.updates() where update.version == 0 { break }
        live.stop()
        let send = Task { try await store.sendOptimistically(.counter(.incrTapped)) }
        // The server is down, so the send is still waiting for its answer; the local state already shows it.
        var attempts = retries.makeAsyncIterator()
        _ = await attempts.next()
        XCTAssertEqual(store.optimisticState.count, 1)
        XCTAssertEqual(store.state.count, 0)
        try live.startAgain()
        let answer = try await send.value
        XCTAssertEqual(answer.version, 1)
        for await update in store.updates() where update.version == 1 { break }
        XCTAssertEqual(store.state.count, 1)
        XCTAssertEqual(store.optimisticState.count, 1, "the server's change replaced the optimistic one, not added to it")
    }

    func testARefusedOptimisticSendIsRolledBack() async throws {
        let live = try LiveServer(inMemory: true)
        let session = try await live.client().createSession(counter)
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        defer { store.stop() }
        _ = try await session.send(.counter(.incrTapped))
        for await update in store.updates() where update.version == 1 { break }
        do {
            try await store.sendOptimistically(.counter(.incrTapped), ifMatch: 0)
            XCTFail("a stale If-Match was applied")
        } catch {
            XCTAssertEqual(error.status, 412)
        }
        XCTAssertEqual(store.optimisticState.count, 1)
        XCTAssertEqual(store.state.count, 1)
    }
}
