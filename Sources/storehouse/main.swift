import Dispatch
import Foundation
import StorehouseServer

// storehouse: parse flags, then serve until SIGTERM or SIGINT, then shut down gracefully.
let version = "storehouse 0.1.0"

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
    let server: Storehouse
    do {
        server = try Storehouse(configuration: configuration)
        try server.start()
    } catch {
        FileHandle.standardError.write(Data("storehouse: cannot start: \(error)\n".utf8))
        exit(1)
    }
    FileHandle.standardError.write(Data("storehouse listening on http://\(configuration.host):\(server.port) (\(configuration.inMemory ? "in memory" : "data in \(configuration.dataDirectory), fsync \(configuration.fsync.rawValue)"))\n".utf8))

    // Signals arrive on a Dispatch source instead of an async-signal handler, so
    // shutdown can take locks and write normally.
    let signalQueue = DispatchQueue(label: "storehouse.signals")
    var sources: [DispatchSourceSignal] = []
    for number in [SIGTERM, SIGINT] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
        source.setEventHandler { @Sendable in
            FileHandle.standardError.write(Data("storehouse: shutting down\n".utf8))
            server.shutdown()
            exit(0)
        }
        source.resume()
        sources.append(source)
    }
    server.waitUntilStopped()
    // The server stopped without a signal: wait for the signal handler's exit if one is running.
    signalQueue.sync {}
}
