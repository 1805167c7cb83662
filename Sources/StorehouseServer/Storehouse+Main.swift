import Foundation
import HTTPEngine
import StoreCore
import StoreKinds
import SystemSupport

extension Storehouse {
    /// What `--version` prints.
    public static var version: String { "\(ServerInfo.name) \(ServerInfo.version)" }

    /// The whole `storehouse` command for a program's `main.swift`: parses the flags and their
    /// environment variables (`--help` lists them), serves `kinds` until SIGTERM or SIGINT, then
    /// shuts down gracefully and exits. A package serves its own kinds beside the shipped ones:
    ///
    /// ```swift
    /// import StorehouseServer
    ///
    /// try Storehouse.main(kinds: [.counter, Kind(name: "notes", reducer: notesReducer)])
    /// ```
    ///
    /// Throws only when `kinds` cannot be served (none, or two with one name); a bad flag prints
    /// one line and exits 2, a server that cannot start exits 1.
    public static func main(kinds: [any StoreKind] = KindRegistry.shipped.all,
                            arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws(KindRegistryError) -> Never {
        let registry = try KindRegistry(kinds)
        let request: LaunchRequest
        do {
            request = try ServerConfiguration.parse(arguments: arguments, environment: environment)
        } catch {
            FileHandle.standardError.write(Data("storehouse: \(error)\n".utf8))
            exit(2)
        }

        switch request {
        case .help:
            print(ServerConfiguration.helpText)
            exit(0)
        case .version:
            print(version)
            exit(0)
        case .healthcheck(let configuration):
            exit(HealthCheck.run(host: configuration.host, port: configuration.port))
        case .serve(let configuration):
            serve(configuration, kinds: registry)
        }
    }

    /// Starts the server, then waits for SIGTERM or SIGINT and shuts it down.
    private static func serve(_ configuration: ServerConfiguration, kinds: KindRegistry) -> Never {
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
            server = try Storehouse(configuration: configuration, kinds: kinds)
            try server.start()
        } catch {
            FileHandle.standardError.write(Data("storehouse: cannot start: \(error)\n".utf8))
            exit(1)
        }
        FileHandle.standardError.write(Data("storehouse listening on http://\(configuration.host):\(server.port) (\(configuration.inMemory ? "in memory" : "data in \(configuration.dataDirectory), fsync \(configuration.fsync.rawValue)")\(configuration.nodeID.map { ", node \($0)" } ?? ""))\n".utf8))

        let signals = terminationSignals
        NamedThread.start("signals") {
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
}
