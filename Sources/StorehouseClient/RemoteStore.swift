import Foundation
#if canImport(Observation)
import Observation
#endif
import StoreCore

/// A session mirrored into a local typed State: it follows the session's event stream, applies
/// each change's JSON Patch to its copy, and after a dropped connection (a restarting server, a
/// network change) resumes with `Last-Event-ID`, so each version is seen once, in order.
///
/// Read ``state`` and ``version`` (observable with Observation where it exists, e.g. in SwiftUI),
/// or iterate ``updates()``:
///
/// ```swift
/// let store = RemoteStore(session: session)
/// for await update in store.updates() {          // the current state, then each change
///     print(update.version, update.state.notes)
/// }
/// ```
public final class RemoteStore<State: StoreState, Action: StoreAction>: @unchecked Sendable {
    // `mirror`, `listeners`, `outputListeners` and `loop` are read and written only under `lock`.
    /// The session it mirrors (sends go through it).
    public let session: RemoteSession<State, Action>
    /// The wait before reconnecting; nil: the `retry:` the server sent (2 s).
    public let reconnectDelay: Duration?
    private let lock = NSLock()
    private var mirror = Mirror()
    private var listeners: [UUID: AsyncStream<Versioned<State>>.Continuation] = [:]
    private var outputListeners: [UUID: AsyncStream<Versioned<StoreOutput>>.Continuation] = [:]
    private var loop: Task<Void, Never>?
    #if canImport(Observation)
    private let registrar = ObservationRegistrar()
    #endif

    private struct Mirror {
        var state: State = .initial
        var json: JSONValue?
        var version = -1
        var connected = false
        var ended: EndReason?
        var serverRetry: Duration = .seconds(2)
        var reconnections = 0
        /// Optimistic sends not yet in `state`: waiting for an answer (`version` nil) or for the
        /// change of the version the server answered.
        var pending: [Pending] = []
        /// `state` with `pending` applied; nil when nothing is pending.
        var optimistic: State?
    }

    private struct Pending {
        let id: UUID
        let action: Action
        var version: Int?
    }

    /// Why the mirror stopped following the session.
    public enum EndReason: Sendable, Equatable {
        /// The session was deleted or expired (the `end` event's reason).
        case sessionEnded(String)
        /// The server refused the stream (401, 404): the session is gone or the token is wrong.
        case refused(ServerProblem)
        /// ``stop()`` was called.
        case stopped
    }

    /// Starts following `session` at once; it goes on until ``stop()`` or the session ends.
    public init(session: RemoteSession<State, Action>, reconnectDelay: Duration? = nil) {
        self.session = session
        self.reconnectDelay = reconnectDelay
        // The loop holds the mirror weakly between events, so a mirror dropped without `stop()`
        // is freed, and its `deinit` cancels the loop and closes the stream.
        let task = Task<Void, Never> { [weak self] in await Self.follow(Owner(store: self), session: session) }
        lock.withLock { loop = task }
    }

    /// The mirror, held weakly by its own follow loop.
    private struct Owner: Sendable {
        weak var store: RemoteStore?
    }

    /// What one event did to the mirror.
    private enum Step {
        case next, resync, ended
    }

    deinit { loop?.cancel() }

    /// The mirrored state (the kind's initial state until the first snapshot arrives).
    public var state: State {
        access(\.state)
        return lock.withLock { mirror.state }
    }

    /// The version of ``state``; -1 until the first snapshot arrives.
    public var version: Int {
        access(\.version)
        return lock.withLock { mirror.version }
    }

    /// Whether a stream is open now.
    public var isConnected: Bool {
        access(\.isConnected)
        return lock.withLock { mirror.connected }
    }

    /// Set once the mirror stopped following the session.
    public var ended: EndReason? {
        access(\.ended)
        return lock.withLock { mirror.ended }
    }

    /// ``state`` with the optimistic sends still in flight applied on top
    /// (``sendOptimistically(_:ifMatch:idempotencyKey:)``); equal to ``state`` when there are none.
    public var optimisticState: State {
        access(\.optimisticState)
        return lock.withLock { mirror.optimistic ?? mirror.state }
    }

    /// How many times the stream was opened again after it dropped.
    public var reconnections: Int { lock.withLock { mirror.reconnections } }

    /// The current state (once known), then every version that follows, in order; it finishes
    /// when the mirror ends. Each call is a separate sequence; none drops a version.
    public func updates() -> AsyncStream<Versioned<State>> {
        subscribe(\.listeners) { mirror.version >= 0 ? Versioned(version: mirror.version, state: mirror.state) : nil }
    }

    /// The store's one-off outputs (`login/confirmationRequested`, a toast…) as they arrive,
    /// each with the version of the action that emitted it. Outputs are not replayed: a sequence
    /// sees those that arrive while it is iterated, and none sent while the stream was down.
    ///
    /// ```swift
    /// for await output in store.outputs() where output.state.type == "signIn/welcome" { showWelcome() }
    /// ```
    public func outputs() -> AsyncStream<Versioned<StoreOutput>> {
        subscribe(\.outputListeners) { nil }
    }

    /// A new sequence fed from `listeners`; `current` (under the lock) is what it starts with.
    private func subscribe<Element>(_ listeners: ReferenceWritableKeyPath<RemoteStore, [UUID: AsyncStream<Element>.Continuation]> & Sendable,
                                    current: () -> Element?) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let key = UUID()
        let ended = lock.withLock {
            if let first = current() { continuation.yield(first) }
            if mirror.ended == nil { self[keyPath: listeners][key] = continuation }
            return mirror.ended != nil
        }
        if ended { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self[keyPath: listeners].removeValue(forKey: key) }
        }
        return stream
    }

    /// Sends an action through the session (see ``RemoteSession/send(_:ifMatch:idempotencyKey:)``);
    /// the mirror moves when the change arrives on the stream.
    @discardableResult
    public func send(_ action: Action, ifMatch: Int? = nil,
                     idempotencyKey: String? = UUID().uuidString) async throws(StorehouseError) -> Versioned<State> {
        try await session.send(action, ifMatch: ifMatch, idempotencyKey: idempotencyKey)
    }

    /// Sends an action and shows its effect in ``optimisticState`` at once, by running the kind's
    /// own reducer on the local state (its effects do not run here: the server runs them). The
    /// server stays the authority: once its change arrives the action is part of ``state``; if
    /// it refuses the action (409, 412, …) the optimistic change is rolled back and the error
    /// thrown. An action the local reducer refuses shows nothing and goes to the server anyway.
    ///
    /// ```swift
    /// Task { try await store.sendOptimistically(.add("milk")) }
    /// store.optimisticState.notes   // [..., "milk"] before the server has answered
    /// ```
    @discardableResult
    public func sendOptimistically(_ action: Action, ifMatch: Int? = nil,
                                   idempotencyKey: String? = UUID().uuidString) async throws(StorehouseError) -> Versioned<State> {
        let id = UUID()
        lock.withLock { mirror.pending.append(Pending(id: id, action: action, version: nil)) }
        reproject()
        do {
            let answer = try await session.send(action, ifMatch: ifMatch, idempotencyKey: idempotencyKey)
            lock.withLock {
                if let index = mirror.pending.firstIndex(where: { $0.id == id }) { mirror.pending[index].version = answer.version }
            }
            reproject()
            return answer
        } catch {
            lock.withLock { mirror.pending.removeAll { $0.id == id } }
            reproject()
            throw error
        }
    }

    /// A change whose action is the oldest optimistic send still waiting for its answer is taken
    /// to be that send, so the projection does not apply it a second time on top of the state
    /// that now holds it while the answer is on its way. (Were it another client's identical
    /// action, the send's own change or answer settles it a moment later.)
    private func claimPending(_ action: JSONValue?, version: Int) {
        guard case .string(let type)? = action?["type"] else { return }
        let payload = action?["payload"]
        lock.withLock {
            guard let index = mirror.pending.firstIndex(where: { $0.version == nil }) else { return }
            let pending = mirror.pending[index].action
            if pending.type == type && pending.payload == payload { mirror.pending[index].version = version }
        }
    }

    /// Rebuilds ``optimisticState``: the mirrored state, then each pending action the server has
    /// not yet been seen to apply, through the kind's reducer in a local `Store` (which rolls
    /// back an action its reducer refuses, as the server's does).
    private func reproject() {
        mutate(\.optimisticState) {
            lock.withLock {
                let confirmed = mirror.version
                mirror.pending.removeAll { pending in pending.version.map { $0 <= confirmed } ?? false }
                guard !mirror.pending.isEmpty else { mirror.optimistic = nil; return }
                let kind = session.kind
                let local = Store(kind: kind.name, state: mirror.state, version: max(0, mirror.version), reducer: kind.reducer,
                                  environment: .immediate)
                let at = Int64(Date().timeIntervalSince1970 * 1_000)
                for pending in mirror.pending { _ = try? local.send([pending.action], at: at, source: .client) }
                mirror.optimistic = local.state
            }
        }
    }

    /// Stops following: the stream closes and ``updates()`` finish.
    public func stop() {
        let task = lock.withLock { loop }
        task?.cancel()
        end(.stopped)
    }

    // MARK: - Following the stream

    private static func follow(_ owner: Owner, session: RemoteSession<State, Action>) async {
        while !Task.isCancelled {
            guard let resumeAfter = owner.store?.resumeVersion else { return }
            var resync = false
            do {
                for try await event in session.events(lastEventID: resumeAfter) {
                    guard let store = owner.store else { return }
                    let step = try store.take(event)
                    if step == .ended { return }
                    if step == .resync { resync = true; break }
                }
            } catch StorehouseError.problem(let problem) where [401, 403, 404, 410].contains(problem.status) {
                owner.store?.end(.refused(problem))
                return
            } catch {
                // A dropped connection or a server that is not back yet: try again below.
            }
            guard let delay = owner.store?.droppedStream(resync: resync) else { return }
            if Task.isCancelled { break }
            try? await Task.sleep(for: delay)
            owner.store?.countReconnection()
        }
    }

    /// The version to resume after (nil: from a snapshot).
    private var resumeVersion: Int?? { lock.withLock { .some(mirror.version >= 0 ? mirror.version : nil) } }

    private func take(_ event: ServerSentEvent) throws -> Step {
        setConnected(true)
        if let retry = event.retry { lock.withLock { mirror.serverRetry = .milliseconds(retry) } }
        switch event.event {
        case "snapshot":
            try applySnapshot(event.data)
        case "change":
            if try !applyChange(event.data) { return .resync }
        case "output":
            tellOutput(event.data)
        case "end":
            let reason = Self.reason(event.data)
            if reason != "shutdown" {
                end(.sessionEnded(reason))
                return .ended
            }
        default:
            break   // events this client does not know
        }
        return .next
    }

    private func countReconnection() { lock.withLock { mirror.reconnections += 1 } }

    /// Marks the stream closed and gives the wait before opening it again.
    private func droppedStream(resync: Bool) -> Duration {
        setConnected(false)
        return lock.withLock {
            if resync { mirror.version = -1; mirror.json = nil }
            return reconnectDelay ?? mirror.serverRetry
        }
    }

    private func applySnapshot(_ data: String) throws {
        let value = try JSONReader.parse(data)
        guard case .int(let version)? = value["version"], let json = value["state"] else {
            throw StorehouseError.invalidAnswer("a snapshot without version and state")
        }
        publish(try State(json: json, path: ""), json: json, version: version)
    }

    /// False when the change does not follow the mirrored version: the mirror starts over from a snapshot.
    private func applyChange(_ data: String) throws -> Bool {
        let value = try JSONReader.parse(data)
        guard case .int(let version)? = value["version"], let patch = value["patch"] else {
            throw StorehouseError.invalidAnswer("a change without version and patch")
        }
        let (current, json) = lock.withLock { (mirror.version, mirror.json) }
        if version <= current { return true }   // seen already
        guard version == current + 1, let json else { return false }
        let next = try JSONPatch.apply(patch, to: json)
        claimPending(value["action"], version: version)
        publish(try State(json: next, path: ""), json: next, version: version)
        return true
    }

    private func publish(_ state: State, json: JSONValue, version: Int) {
        let update = Versioned(version: version, state: state)
        // Listeners are told outside the lock (a stream's termination handler takes it); only
        // this task publishes, so they still hear the versions in order.
        var told: [AsyncStream<Versioned<State>>.Continuation] = []
        mutate(\.version) {
            mutate(\.state) {
                told = lock.withLock {
                    mirror.state = state
                    mirror.json = json
                    mirror.version = version
                    return Array(listeners.values)
                }
            }
        }
        for listener in told { listener.yield(update) }
        if lock.withLock({ !mirror.pending.isEmpty }) { reproject() }
    }

    private func tellOutput(_ data: String) {
        guard let value = try? JSONReader.parse(data), case .int(let version)? = value["version"],
              case .string(let type)? = value["output"]?["type"] else { return }
        let output = Versioned(version: version, state: StoreOutput(type: type, payload: value["output"]?["payload"]))
        for listener in lock.withLock({ Array(outputListeners.values) }) { listener.yield(output) }
    }

    private func setConnected(_ connected: Bool) {
        guard lock.withLock({ mirror.connected != connected }) else { return }
        mutate(\.isConnected) { lock.withLock { mirror.connected = connected } }
    }

    private func end(_ reason: EndReason) {
        var told: [AsyncStream<Versioned<State>>.Continuation] = []
        var toldOutputs: [AsyncStream<Versioned<StoreOutput>>.Continuation] = []
        mutate(\.ended) {
            (told, toldOutputs) = lock.withLock {
                if mirror.ended == nil { mirror.ended = reason }
                mirror.connected = false
                defer { listeners.removeAll(); outputListeners.removeAll() }
                return (Array(listeners.values), Array(outputListeners.values))
            }
        }
        for listener in told { listener.finish() }
        for listener in toldOutputs { listener.finish() }
    }

    private static func reason(_ data: String) -> String {
        if case .string(let reason)? = (try? JSONReader.parse(data))?["reason"] { reason } else { "unknown" }
    }

    // MARK: - Observation

    private func access<Member>(_ keyPath: KeyPath<RemoteStore, Member>) {
        #if canImport(Observation)
        registrar.access(self, keyPath: keyPath)
        #endif
    }

    private func mutate<Member>(_ keyPath: KeyPath<RemoteStore, Member>, _ change: () -> Void) {
        #if canImport(Observation)
        registrar.withMutation(of: self, keyPath: keyPath, change)
        #else
        change()
        #endif
    }
}

#if canImport(Observation)
extension RemoteStore: Observable {}
#endif
