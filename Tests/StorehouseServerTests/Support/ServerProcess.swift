import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// The built `storehouse` executable run as a child process, for tests that must kill it.
final class ServerProcess {
    let process = Process()
    private(set) var port = 0
    private let stderrPipe = Pipe()

    /// The executable sits beside the test bundle in SwiftPM's build folder.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("storehouse")
    }

    /// `descriptorLimit`: the child's `RLIMIT_NOFILE` (soft and hard, set by the shell it is exec'd from).
    init(arguments: [String], descriptorLimit: Int? = nil) throws {
        let serverArguments = ["--port", "0", "--access-log", "false"] + arguments
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", Self.executable.path] + serverArguments
        } else {
            process.executableURL = Self.executable
            process.arguments = serverArguments
        }
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The server names its port on standard error once it listens.
        var seen = ""
        let handle = stderrPipe.fileHandleForReading
        while port == 0 {
            let data = handle.availableData
            if data.isEmpty { throw TestClientError(description: "server exited before listening: \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
            if let range = seen.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(seen[range].split(separator: ":").last ?? "") ?? 0
            }
        }
        // Keep draining so the child never blocks on a full pipe.
        let drain = Thread { while !handle.availableData.isEmpty {} }
        drain.start()
    }

    /// Polls `/readyz` until it answers 200 (the server is a separate process: there is no event to await).
    func waitUntilReady(timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let response = try? TestClient(port: port).request("GET", "/readyz"), response.status == 200 { return }
            usleep(20_000)
        }
        throw TestClientError(description: "not ready within \(timeout) s")
    }

    func kill(_ signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }
}
