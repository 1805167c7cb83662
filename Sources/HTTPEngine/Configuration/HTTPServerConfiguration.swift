/// Where the server listens and the limits it enforces.
///
/// ```swift
/// var config = HTTPServerConfiguration()
/// config.port = 0            // ephemeral; read `server.port` after `start()`
/// config.maxBodyBytes = 64 << 10
/// ```
public struct HTTPServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 picks an ephemeral port.
    public var port: Int = 8080
    /// Event-loop threads, each owning its connections; defaults to the number of active cores.
    public var ioThreads: Int = HTTPServerConfiguration.activeCores
    /// Open connections beyond this are answered 503 and closed, except that each still has one
    /// request read, and answered when its path is one of `probePaths`.
    public var maxConnections: Int = 10_000
    /// Paths answered beyond `maxConnections` (health probes and metrics): an orchestrator must
    /// not take a server whose connections event streams hold for a dead one. Each such
    /// connection serves one request and closes.
    public var probePaths: Set<String> = []
    /// Connections beyond `maxConnections` read for a probe at once; past it they are refused unread.
    public var maxProbeConnections: Int = 256
    public var maxBodyBytes: Int = 1 << 20
    public var maxHeaderBytes: Int = 16 << 10
    public var maxHeaderCount: Int = 100
    public var maxTargetBytes: Int = 8 << 10
    /// From the first byte of a request until its header block is complete (slowloris).
    public var headerTimeout: Duration = .seconds(10)
    /// A keep-alive connection with no request in progress is closed after this long without a
    /// byte read or written.
    public var idleTimeout: Duration = .seconds(60)
    /// A new connection that sends no byte in this time is closed silently: idle sockets opened
    /// by the thousand must not hold their slots for the whole idle timeout.
    public var firstByteTimeout: Duration = .seconds(10)
    /// From the end of the header block until the body is complete.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long `shutdown()` waits for in-flight requests and streams before closing everything.
    public var shutdownGrace: Duration = .seconds(10)
    /// A stream whose unsent bytes exceed this is closed (the client is not reading).
    public var maxStreamBufferBytes: Int = 8 << 20
    /// true: every I/O thread has its own SO_REUSEPORT listener and the kernel spreads connections.
    /// false: one listener on the first thread hands connections round-robin to all threads.
    public var reusePortListeners: Bool = true
    /// Listen backlog passed to listen(2).
    public var backlog: Int = 1024
    /// true: an answer given on another thread is written to the socket by that thread when
    /// the connection has nothing else queued, rather than handed to the connection's loop
    /// (`EventLoop+DirectAnswer.swift`). false: every answer is written by the loop.
    public var directAnswers: Bool = true
    /// A loop that has run this long without sleeping calls `sched_yield` at the end of its
    /// iteration, so a thread woken on its core runs then, not at the scheduler's next tick.
    /// Under a microsecond: after every iteration. nil: the loop keeps its core until it sleeps or
    /// is preempted (the storehouse server's choice under `--fsync always`, and for comparisons).
    public var yieldAfterBusy: Duration? = .microseconds(250)

    public init() {}

    public static var activeCores: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? n : 1
    }

    var parserLimits: HTTPParserLimits {
        HTTPParserLimits(maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount,
                         maxTargetBytes: maxTargetBytes, maxBodyBytes: maxBodyBytes)
    }
}

#if canImport(Glibc)
import Glibc
#endif
