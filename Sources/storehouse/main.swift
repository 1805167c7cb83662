import Foundation
import HTTPEngine
import StorehouseServer

// storehouse: parse flags, then serve until SIGTERM or SIGINT, then shut down gracefully.
let version = "\(ServerInfo.name) \(ServerInfo.version)"

let request: LaunchRequest
do {
    request = try ServerConfiguration.parse(arguments: Array(CommandLine.arguments.dropFirst()),
                                            environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("storehouse: \(error)\n".utf8))
    exit(2)
}

switch request {
case .help:
    print(ServerConfiguration.helpText)
case .version:
    print(version)
case .healthcheck(let configuration):
    exit(HealthCheck.run(host: configuration.host, port: configuration.port))
case .serve(let configuration):
    // SIGTERM and SIGINT are blocked before any thread starts (threads inherit the mask), and one
    // thread takes them with sigwait(2). A signal sent at any moment, even during start-up, stays
    // pending until then instead of being lost or killing the process half-way.
    var terminationSignals = sigset_t()
    sigemptyset(&terminationSignals)
    sigaddset(&terminationSignals, SIGTERM)
    sigaddset(&terminationSignals, SIGINT)
    pthread_sigmask(SIG_BLOCK, &terminationSignals, nil)

    let server: Storehouse
    do {
        server = try Storehouse(configuration: configuration)
        try server.start()
    } catch {
        FileHandle.standardError.write(Data("storehouse: cannot start: \(error)\n".utf8))
        exit(1)
    }
    FileHandle.standardError.write(Data("storehouse listening on http://\(configuration.host):\(server.port) (\(configuration.inMemory ? "in memory" : "data in \(configuration.dataDirectory), fsync \(configuration.fsync.rawValue)")\(configuration.nodeID.map { ", node \($0)" } ?? ""))\n".utf8))

    let signals = terminationSignals
    Thread.startNamed("signals") {
        var waited = signals
        var received: Int32 = 0
        sigwait(&waited, &received)
        FileHandle.standardError.write(Data("storehouse: shutting down (signal \(received))\n".utf8))
        server.shutdown()
        exit(0)
    }
    server.waitUntilStopped()
    // The server stopped on its own: give a shutdown in progress the time to finish and exit 0.
    Thread.sleep(forTimeInterval: Double(configuration.shutdownGraceSeconds) + 1)
    exit(0)
}
