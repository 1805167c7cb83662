import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// An HTTP/1.1 server on non-blocking sockets: `ioThreads` epoll loops, each with its own
/// SO_REUSEPORT listener, calling `handler` on the loop that owns the connection.
///
/// ```swift
/// var config = HTTPServerConfiguration()
/// config.port = 0
/// let server = HTTPServer(configuration: config, handler: HTTPHandlerClosure { request, responder in
///     responder.respond(HTTPResponse(status: 200, body: Array("ok".utf8)))
/// })
/// try server.start()
/// print(server.port)
/// server.shutdown(); server.waitUntilStopped()
/// ```
public final class HTTPServer: Sendable {
    struct State {
        var started = false
        var loops: [EventLoop] = []
    }

    let core: ServerCore
    private let state = Mutex(State())
    private let boundPort = Atomic<Int>(0)
    private let running = DispatchGroup()

    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        core = ServerCore(configuration: configuration, handler: handler)
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard one, as `start()` does. Call it first when
    /// something opened before the server sizes itself from that limit.
    public static func raiseDescriptorLimit() { Syscalls.raiseFileLimit() }

    /// Binds, listens, and starts the I/O threads; returns once connections are being accepted.
    public func start() throws {
        Syscalls.ignoreSIGPIPE()
        Syscalls.raiseFileLimit()
        let configuration = core.configuration
        let loops = try state.withLock { s throws(HTTPServerError) -> [EventLoop] in
            guard !s.started else { throw .alreadyStarted }
            var loops: [EventLoop] = []
            var port = configuration.port
            var failure: HTTPServerError?
            for index in 0..<max(1, configuration.ioThreads) {
                do throws(HTTPServerError) {
                    var fd: Int32 = -1
                    if index == 0 || configuration.reusePortListeners {
                        let (listener, bound) = try Syscalls.makeListener(host: configuration.host, port: port, backlog: configuration.backlog,
                                                                      exclusive: index == 0)
                        fd = listener
                        port = bound
                    }
                    do throws(HTTPServerError) {
                        loops.append(try EventLoop(core: core, index: index, listenFD: fd))
                    } catch {
                        if fd >= 0 { _ = Glibc.close(fd) }
                        throw error
                    }
                } catch {
                    failure = error
                    break
                }
            }
            if let failure {
                // Loops that never ran still own a listener and an epoll set: run each once through shutdown.
                for loop in loops { loop.enqueue(.shutdown); loop.runUntilStopped() }
                throw failure
            }
            if !configuration.reusePortListeners { loops[0].siblings = loops }
            boundPort.store(port, ordering: .relaxed)
            s.started = true
            s.loops = loops
            return loops
        }
        for (index, loop) in loops.enumerated() {
            running.enter()
            let group = running
            NamedThread.start("http-io-\(index)") {
                loop.run()
                group.leave()
            }
        }
    }

    /// The bound port (the real one when the configuration asked for 0); 0 before `start()`.
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// Open client connections right now (all loops).
    public var openConnections: Int { core.openConnections.load(ordering: .relaxed) }

    /// Graceful: stop accepting, let in-flight requests finish (their answers carry `Connection: close`),
    /// call every stream's `onShutdown`, close idle connections; after `shutdownGrace` close the rest.
    public func shutdown() {
        core.shuttingDown.store(true, ordering: .relaxed)
        for loop in state.withLock({ $0.loops }) { loop.enqueue(.shutdown) }
    }

    /// Blocks until every I/O thread has exited (at once if the server never started).
    public func waitUntilStopped() {
        running.wait()
    }

    /// Calls `shutdown()` on SIGTERM and SIGINT (the signals' default action is disabled).
    public func shutdownOnTerminationSignals() {
        TerminationSignals.onSignal { [weak self] in self?.shutdown() }
    }
}
