import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreCore
import StoreKinds
import StorehouseClient
import XCTest
#if canImport(Observation)
import Observation
#endif

/// The mirror of a session against a live server: every version once, in order, through a
/// server restart; the end of a deleted session; Observation.
final class RemoteStoreTests: XCTestCase {
    let counter: Kind<CounterAppState, CounterAppAction> = .counter

    /// Collects a mirror's updates until `version`, on its own task.
    private func collect(_ store: RemoteStore<CounterAppState, CounterAppAction>, until version: Int) -> Task<[Versioned<CounterAppState>], Never> {
        let updates = store.updates()
        return Task {
            var seen: [Versioned<CounterAppState>] = []
            for await update in updates {
                seen.append(update)
                if update.version >= version { break }
            }
            return seen
        }
    }

    /// Waits until the mirror is at `version`.
    private func reach(_ store: RemoteStore<CounterAppState, CounterAppAction>, _ version: Int) async {
        for await update in store.updates() where update.version >= version { return }
    }

    func testTheMirrorSeesEveryVersionOnceThroughAServerRestart() async throws {
        let live = try LiveServer()
        let session = try await live.client(maxAttempts: 400).createSession(counter)
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        defer { store.stop() }
        await reach(store, 0)
        let seen = collect(store, until: 10)
        for _ in 0..<5 { _ = try await session.send(.counter(.incrTapped)) }
        await reach(store, 5)
        live.stop()   // the stream gets `end` (shutdown) and the mirror tries again every 20 ms
        try live.startAgain()
        for _ in 0..<5 { _ = try await session.send(.counter(.incrTapped)) }
        let updates = await seen.value
        XCTAssertEqual(updates.map(\.version), Array(0...10), "each version once, in order")
        XCTAssertEqual(updates.map(\.state.count), Array(0...10))
        XCTAssertEqual(store.state.count, 10)
        XCTAssertEqual(store.version, 10)
        XCTAssertGreaterThanOrEqual(store.reconnections, 1)
    }

    func testAfterAKilledServerTheMirrorResumesWithEveryVersionOnce() async throws {
        let directory = NSTemporaryDirectory() + "storehouse-client-killed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = try ServerChild(directory: directory)
        try await child.start()
        let client = StorehouseClient(baseURL: URL(string: "http://127.0.0.1:\(child.port)") ?? URL(fileURLWithPath: "/"),
                                      maxAttempts: 400, retryDelay: .milliseconds(20))
        let session = try await client.createSession(counter)
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        defer { store.stop() }
        await reach(store, 0)
        let seen = collect(store, until: 8)
        for _ in 0..<4 { _ = try await session.send(.counter(.incrTapped)) }
        await reach(store, 4)
        child.kill(SIGKILL)   // no `end` event: the stream just drops
        try await child.start()
        for _ in 0..<4 { _ = try await session.send(.counter(.incrTapped)) }
        let updates = await seen.value
        XCTAssertEqual(updates.map(\.version), Array(0...8), "each version once, in order")
        XCTAssertEqual(updates.map(\.state.count), Array(0...8))
        XCTAssertGreaterThanOrEqual(store.reconnections, 1)
    }

    func testActionsSentWhileTheServerIsDownAreMirroredAfterTheResume() async throws {
        let live = try LiveServer()
        let session = try await live.client(maxAttempts: 400).createSession(counter)
        for _ in 0..<3 { _ = try await session.send(.counter(.incrTapped)) }
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        defer { store.stop() }
        await reach(store, 3)
        let seen = collect(store, until: 8)
        live.stop()
        try live.startAgain()
        // Another client moves the session on; the mirror resumes after version 3 and replays 4...8.
        let other = live.client().openSession(counter, id: session.id, token: session.token)
        _ = try await other.send([.counter(.incrTapped), .counter(.incrTapped), .counter(.decrTapped), .counter(.incrTapped), .counter(.incrTapped)])
        let versions = await seen.value.map(\.version)
        XCTAssertEqual(versions, Array(3...8))
        XCTAssertEqual(store.state.count, 6)
    }

    func testTheMirrorEndsWhenTheSessionIsDeleted() async throws {
        let live = try LiveServer(inMemory: true)
        let session = try await live.client().createSession(counter)
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        await reach(store, 0)
        let updates = store.updates()
        try await session.delete()
        for await _ in updates {}   // finishes: the stream ended with reason "deleted"
        XCTAssertEqual(store.ended, .sessionEnded("deleted"))
        XCTAssertFalse(store.isConnected)
    }

    func testAMirrorDroppedWithoutStopIsFreedAndClosesItsStream() async throws {
        let live = try LiveServer(inMemory: true)
        let session = try await live.client().createSession(counter)
        var store: RemoteStore<CounterAppState, CounterAppAction>? = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        if let store { await reach(store, 0) }
        let following = try await subscribers(live)
        XCTAssertEqual(following, 1)
        weak var dropped = store
        store = nil
        XCTAssertNil(dropped, "the follow loop must not keep the mirror alive")
        // The server hears the stream close; polled, since nothing on this side can await it.
        var open = 1
        for _ in 0..<500 where open > 0 {
            open = try await subscribers(live)
            if open > 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        XCTAssertEqual(open, 0, "the dropped mirror's stream is closed")
    }

    /// The server's `storehouse_subscribers` gauge.
    private func subscribers(_ live: LiveServer) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: live.url.appendingPathComponent("metrics"))
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("storehouse_subscribers ") }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    func testAMirrorOfAMissingSessionEndsRefused() async throws {
        let live = try LiveServer(inMemory: true)
        let store = RemoteStore(session: live.client().openSession(counter, id: "nope", token: "nope"), reconnectDelay: .milliseconds(20))
        for await _ in store.updates() {}
        guard case .refused(let problem)? = store.ended else { return XCTFail("\(String(describing: store.ended))") }
        XCTAssertEqual(problem.status, 404)
    }

    func testOutputsArriveWithTheVersionOfTheActionThatEmittedThem() async throws {
        let live = try LiveServer(inMemory: true)
        let login: Kind<LoginState, LoginAction> = .login
        let session = try await live.client().createSession(login)
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        defer { store.stop() }
        var outputs = store.outputs().makeAsyncIterator()
        for await update in store.updates() where update.version == 0 { break }
        _ = try await session.send([.emailChanged("ada@example.com"), .passwordChanged("long enough pw")])
        // The address is validated by an effect: tapping waits until the mirror has its verdict.
        for await update in store.updates() where update.state.canLogin { break }
        let tapped = try await session.send(.loginTapped)
        let output = await outputs.next()
        XCTAssertEqual(output?.state.type, "login/confirmationRequested")
        XCTAssertEqual(output?.version, tapped.version)
    }

    #if canImport(Observation)
    func testObserversHearOfANewVersion() async throws {
        let live = try LiveServer(inMemory: true)
        let session = try await live.client().createSession(counter)
        let store = RemoteStore(session: session, reconnectDelay: .milliseconds(20))
        defer { store.stop() }
        await reach(store, 0)
        let (changed, changes) = AsyncStream<Void>.makeStream()
        withObservationTracking { _ = store.state } onChange: { changes.yield() }
        _ = try await session.send(.counter(.incrTapped))
        var iterator = changed.makeAsyncIterator()
        await iterator.next()
        await reach(store, 1)
        XCTAssertEqual(store.state.count, 1)
    }
    #endif
}
