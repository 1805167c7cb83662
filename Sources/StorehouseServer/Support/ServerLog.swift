import Foundation
import StoreCore

/// Operational messages on standard error, one line each; the access log has standard output.
enum ServerLog {
    static func info(_ message: String) { emit("info", message) }
    static func error(_ message: String) { emit("error", message) }

    private static func emit(_ level: String, _ message: String) {
        let line = "\(Timestamp.iso8601(millis: SessionContext.wallClock())) \(level) \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
