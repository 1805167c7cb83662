import Foundation
import StoreCore
import StoreKinds
import StorehouseClient
import StorehouseServer

/// A server in this process on a free loopback port, kept on that port across restarts so a
/// client's base URL stays valid; journaled in a fresh directory unless `inMemory`.
final class LiveServer {
    private(set) var server: Storehouse
    let directory: String
    let port: Int
    private let inMemory: Bool
    private let kinds: KindRegistry

    init(inMemory: Bool = false, kinds: KindRegistry = .shipped, name: String = #function) throws {
        directory = NSTemporaryDirectory() + "storehouse-client-\(name.filter(\.isLetter))-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.inMemory = inMemory
        self.kinds = kinds
        server = try Self.start(directory: directory, port: 0, inMemory: inMemory, kinds: kinds)
        port = server.port
    }

    deinit {
        server.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    func client(maxAttempts: Int = 5, onRetry: (@Sendable (Int, StorehouseError) -> Void)? = nil) -> StorehouseClient {
        StorehouseClient(baseURL: url, maxAttempts: maxAttempts, retryDelay: .milliseconds(50), onRetry: onRetry)
    }

    /// Graceful shutdown: streams get `end` with reason `shutdown`, the journal is closed.
    func stop() { server.shutdown() }

    /// A new server on the same port and data directory: it recovers every session.
    func startAgain() throws {
        server = try Self.start(directory: directory, port: port, inMemory: inMemory, kinds: kinds)
    }

    private static func start(directory: String, port: Int, inMemory: Bool, kinds: KindRegistry) throws -> Storehouse {
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.inMemory = inMemory
        configuration.dataDirectory = directory
        configuration.fsync = .always
        configuration.accessLog = false
        configuration.shutdownGraceSeconds = 1
        let server = try Storehouse(configuration: configuration, kinds: kinds, effectEnvironment: .immediate)
        try server.start()
        return server
    }
}
