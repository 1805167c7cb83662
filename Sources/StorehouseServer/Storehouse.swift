import Dispatch
import Foundation
import HTTPEngine
import Journal
import StoreCore
import StoreKinds

/// The whole server: configuration and kinds in, HTTP out. ``main(kinds:arguments:environment:)``
/// makes one from the command line, starts it and calls ``shutdown()`` on SIGTERM or SIGINT;
/// a program or a test can also run one itself:
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0
/// configuration.inMemory = true
/// let server = try Storehouse(configuration: configuration, kinds: KindRegistry([.counter, myKind]))
/// try server.start()
/// print(server.port)
/// server.shutdown()
/// ```
public final class Storehouse: Sendable {
    public let configuration: ServerConfiguration
    let registry: SessionRegistry
    let metrics: Metrics
    let accessLog: AccessLog
    let readiness: Readiness
    let http: HTTPServer
    let log: any SessionLog
    let journal: Journal?
    private let heartbeat = LockedBox<DispatchSourceTimer?>(nil)

    /// `kinds`: what `POST /sessions` can create and recovery can rebuild (the shipped four unless
    /// given); `effectEnvironment`: what effects sleep and call (the real clock and the
    /// configuration's latency unless given).
    public convenience init(configuration: ServerConfiguration, kinds: KindRegistry = .shipped, effectEnvironment: EffectEnvironment? = nil) throws {
        try self.init(configuration: configuration, effectEnvironment: effectEnvironment, fanOutQueue: .global(qos: .userInitiated), kinds: kinds)
    }

    /// `fanOutQueue`: where sessions with many subscribers publish; `log`: in place of the one the
    /// configuration names (tests hold either to watch the order of what follows).
    /// `now`: the wall clock in milliseconds (tests move it to expire sessions without waiting).
    init(configuration: ServerConfiguration, effectEnvironment: EffectEnvironment?, fanOutQueue: DispatchQueue,
         log injectedLog: (any SessionLog)? = nil, kinds: KindRegistry = .shipped,
         now: @escaping @Sendable () -> Int64 = SessionContext.wallClock) throws {
        self.configuration = configuration
        let gauges = Gauges()
        let registryBox = LockedBox<SessionRegistry?>(nil)
        metrics = Metrics(gauges: { (registryBox.value?.count ?? 0, gauges.subscriberCount) }, memory: {
            registryBox.value.map { registry in
                let budget = registry.context.memoryBudget
                return (budget.accounted, budget.limit, MemoryBudget.readResident() ?? 0)
            }
        }, residentSessions: { registryBox.value?.residentCount ?? 0 })
        accessLog = AccessLog(enabled: configuration.accessLog)
        if let injectedLog {
            journal = nil
            log = injectedLog
        } else if configuration.inMemory {
            journal = nil
            log = MemoryLog()
        } else {
            // The journal sizes its descriptor budget from the limit as it opens.
            HTTPServer.raiseDescriptorLimit()
            let opened = try Journal(directory: configuration.dataDirectory, fsync: FsyncPolicy(rawValue: configuration.fsync.rawValue) ?? .always)
            journal = opened
            log = JournalLog(journal: opened, eventLoops: Self.httpConfiguration(configuration).ioThreads)
        }
        var environment = effectEnvironment ?? EffectEnvironment()
        if effectEnvironment == nil { environment.latency = .milliseconds(configuration.effectLatencyMilliseconds) }
        let readiness = Readiness()
        self.readiness = readiness
        let context = SessionContext(configuration: configuration, log: log, metrics: metrics, gauges: gauges,
                                     effectEnvironment: environment, fanOutQueue: fanOutQueue, readiness: readiness, now: now, kinds: kinds,
                                     expiryClocks: journal.map { _ in ExpiryClocks(directory: configuration.dataDirectory) })
        registry = SessionRegistry(context: context, maxSessions: configuration.maxSessions)
        registryBox.value = registry

        self.http = HTTPServer(configuration: Self.httpConfiguration(configuration),
                               handler: Router(registry: registry, metrics: metrics, accessLog: accessLog, readiness: readiness,
                                                       access: AccessPolicy(configuration)))
    }

    /// The engine's settings for `configuration`.
    static func httpConfiguration(_ configuration: ServerConfiguration) -> HTTPServerConfiguration {
        var http = HTTPServerConfiguration()
        http.host = configuration.host
        http.port = configuration.port
        http.maxConnections = configuration.maxConnections
        // docs/API.md "Lifecycle": health, readiness and metrics are answered beyond the limit.
        http.probePaths = ["/healthz", "/readyz", "/metrics"]
        if let threads = configuration.ioThreads { http.ioThreads = threads }
        http.maxBodyBytes = configuration.maxBodyBytes
        http.shutdownGrace = .seconds(configuration.shutdownGraceSeconds)
        // The session layer bounds a subscriber at --subscriber-buffer-bytes plus one snapshot;
        // the engine's own cap is only a backstop above that.
        http.maxStreamBufferBytes = max(configuration.subscriberBufferBytes * 4, 256 << 20)
        if !configuration.inMemory && configuration.fsync == .always {
            // The loops' requests wait for the journal's writer here, and a loop that yields
            // delays the requests of the writer's next group: under scripts/bench-fsync.sh a yield
            // after every iteration lowers the requests/s and raises the p99, and the 250 µs rule
            // gains nothing.
            http.yieldAfterBusy = nil
        }
        return http
    }

    /// Binds the port, then rebuilds the sessions on disk; `/readyz` says 200 once that is done.
    public func start() throws {
        try listen()
        recover()
    }

    /// Accepts connections: health and metrics answer at once, `/readyz` and the session routes
    /// answer 503 `not-ready` until ``recover()`` has finished.
    public func listen() throws {
        try http.start()
        heartbeat.value = registry.startHeartbeats(intervalSeconds: configuration.heartbeatSeconds)
    }

    /// Rebuilds every session from the data directory, then marks the server ready.
    public func recover() {
        if let journal {
            let started = ContinuousClock.now
            let report = Recovery.run(journal: journal, registry: registry)
            // What recovery read and let go goes back to the kernel: the memory budget counts the
            // resident size.
            registry.context.memoryBudget.returnFreedMemory()
            // The clocks of sessions that are gone leave the file (it holds one line per session).
            if let clocks = registry.context.expiryClocks {
                let recorded = clocks.takeRecordedAtStart()
                if !recorded.isEmpty { clocks.rewrite(recorded.filter { registry.exists($0.key) }.map { ($0.key, $0.value) }) }
            }
            let total = (ContinuousClock.now - started) / .seconds(1)
            ServerLog.info("recovered \(report.sessions) sessions (\(report.hibernated) idle ones hibernated, not replayed), \(report.actions) actions in \(String(format: "%.3f", total)) s; \(report.failures) failed")
        }
        readiness.set(.ready)
    }

    /// The port the server listens on (the real one when `--port 0`).
    public var port: Int { http.port }

    /// Graceful shutdown: stop accepting, end streams with `end`/`shutdown`,
    /// answer what is in flight, flush the journal, within `--shutdown-grace-s`.
    public func shutdown() {
        readiness.set(.draining)
        heartbeat.value?.cancel()
        http.shutdown()
        http.waitUntilStopped()
        // What effects in flight feed back is journaled before the journal closes (a login's answer, say).
        _ = registry.context.gauges.effects.wait(timeout: .now() + .seconds(min(2, configuration.shutdownGraceSeconds)))
        // Every expiry clock as it is now: a restart goes on from the last request, exactly.
        registry.recordExpiryClocks(at: registry.context.now(), exact: true)
        registry.context.expiryClocks?.sync()
        // A snapshot being encoded reaches the journal before it closes: the restart reads it.
        registry.context.snapshotWriter.waitUntilIdle()
        log.close()
        accessLog.flush()
    }

    public func waitUntilStopped() { http.waitUntilStopped() }
}
