import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The built `storehouse` executable as a child process on a fixed loopback port, so it can be
/// killed (no `end` event, the connection just drops) and started again where clients expect it.
final class ServerChild {
    let port: Int
    let directory: String
    private var process: Process?

    init(directory: String) throws {
        self.directory = directory
        port = try Self.freePort()
    }

    deinit { kill(SIGKILL) }

    /// Starts the server and returns once it answers `/readyz` 200.
    func start() async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("storehouse")
        child.arguments = ["--port", String(port), "--data-dir", directory, "--fsync", "always", "--access-log", "false"]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        process = child
        // A separate process: there is no event to await, so /readyz is asked until it says 200.
        let ready = URL(string: "http://127.0.0.1:\(port)/readyz") ?? URL(fileURLWithPath: "/")
        for _ in 0..<1_000 {
            if let (_, response) = try? await URLSession.shared.data(from: ready), (response as? HTTPURLResponse)?.statusCode == 200 { return }
            guard child.isRunning else { throw CocoaError(.executableLoad) }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CocoaError(.executableLoad)
    }

    func kill(_ signal: Int32) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
