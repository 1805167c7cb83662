import Foundation
import StoreCore
import StoreKinds
import StorehouseClient
import XCTest

/// The typed client against a live server on loopback: create, send, batch, If-Match,
/// Idempotency-Key, reads and refusals.
final class RemoteSessionTests: XCTestCase {
    let counter: Kind<CounterAppState, CounterAppAction> = .counter

    func testSendsSingleAndBatchedActionsAndReadsTheState() async throws {
        let live = try LiveServer(inMemory: true)
        let session = try await live.client().createSession(counter)
        let one = try await session.send(.counter(.incrTapped))
        XCTAssertEqual(one.version, 1)
        XCTAssertEqual(one.state.count, 1)
        let batch = try await session.send([.counter(.incrTapped), .counter(.incrTapped), .counter(.decrTapped)])
        XCTAssertEqual(batch.version, 4)
        XCTAssertEqual(batch.state.count, 2)
        let read = try await session.state()
        XCTAssertEqual(read.version, 4)
        XCTAssertEqual(read.state.count, 2)
        let reopened = live.client().openSession(counter, id: session.id, token: session.token)
        let again = try await reopened.state()
        XCTAssertEqual(again.version, 4)
    }

    func testAMinimalSendAnswersThePatchInsteadOfTheState() async throws {
        let live = try LiveServer(inMemory: true)
        let session = try await live.client().createSession(counter)
        let applied = try await session.sendMinimal([.counter(.incrTapped), .counter(.incrTapped)])
        XCTAssertEqual(applied.version, 2)
        guard case .array(let operations) = applied.state else { return XCTFail("not a patch: \(applied.state)") }
        XCTAssertFalse(operations.isEmpty)
        XCTAssertTrue(operations.allSatisfy { $0["op"] != nil && $0["path"] != nil }, "RFC 6902 operations")
        let read = try await session.state()
        XCTAssertEqual(read.state.count, 2)
    }

    func testAStartingStateIsSentAndAStaleIfMatchIsRefusedWithTheCurrentVersion() async throws {
        let live = try LiveServer(inMemory: true)
        var start = CounterAppState.initial
        start.count = 41
        let session = try await live.client().createSession(counter, state: start)
        _ = try await session.send(.counter(.incrTapped), ifMatch: 0)
        do {
            _ = try await session.send(.counter(.incrTapped), ifMatch: 0)
            XCTFail("a stale If-Match was applied")
        } catch {
            guard case .problem(let problem) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(problem.status, 412)
            XCTAssertEqual(problem.slug, "version-mismatch")
            XCTAssertEqual(problem["currentVersion"], .int(1))
        }
        let state = try await session.state()
        XCTAssertEqual(state.state.count, 42)
    }

    func testARepeatedIdempotencyKeyGetsTheFirstAnswerAndAppliesOnce() async throws {
        let live = try LiveServer(inMemory: true)
        let session = try await live.client().createSession(counter)
        let first = try await session.send(.counter(.incrTapped), idempotencyKey: "tap-1")
        let repeated = try await session.send(.counter(.incrTapped), idempotencyKey: "tap-1")
        XCTAssertEqual(first.version, 1)
        XCTAssertEqual(repeated.version, 1)
        XCTAssertEqual(repeated.state.count, 1)
        let state = try await session.state()
        XCTAssertEqual(state.version, 1)
    }

    func testARefusedActionIsAProblemTheCallerCanActOn() async throws {
        let live = try LiveServer(inMemory: true)
        let login: Kind<LoginState, LoginAction> = .login
        let session = try await live.client().createSession(login)
        do {
            _ = try await session.send(.loginTapped)
            XCTFail("loginTapped with an empty form was applied")
        } catch {
            XCTAssertEqual(error.status, 409)
            guard case .problem(let problem) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(problem.slug, "action-rejected")
        }
        let gone = live.client().openSession(login, id: session.id, token: "wrong")
        do {
            _ = try await gone.state()
            XCTFail("a wrong token was accepted")
        } catch {
            XCTAssertEqual(error.status, 401)
        }
    }

    func testASendWithAKeyIsTriedAgainUntilTheServerIsBack() async throws {
        let live = try LiveServer()
        let (retries, retried) = AsyncStream<Int>.makeStream()
        let session = try await live.client(maxAttempts: 400, onRetry: { attempt, _ in retried.yield(attempt) }).createSession(counter)
        live.stop()
        let send = Task { try await session.send(.counter(.incrTapped), idempotencyKey: "while-down") }
        // The first attempt found nothing listening; the server comes back before a later one.
        var attempts = retries.makeAsyncIterator()
        let first = await attempts.next()
        XCTAssertEqual(first, 1)
        try live.startAgain()
        let answer = try await send.value
        XCTAssertEqual(answer.version, 1)
        XCTAssertEqual(answer.state.count, 1)
        // Without a key nothing is repeated: the caller learns at once that no answer came.
        live.stop()
        do {
            _ = try await session.send(.counter(.incrTapped), idempotencyKey: nil)
            XCTFail("a send reached a stopped server")
        } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
    }
}
