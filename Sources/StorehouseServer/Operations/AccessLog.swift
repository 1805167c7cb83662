import Foundation
import StoreCore
import Synchronization

/// One line per request on standard output: time, method, path (never the query,
/// which may carry `access_token`), status and duration.
///
/// Lines are gathered in memory and written by a background thread every 100 ms,
/// so an I/O thread never waits on the terminal or a pipe.
public final class AccessLog: Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let enabled: Bool
    private let flushLimit = 64 << 10

    public init(enabled: Bool) {
        self.enabled = enabled
        guard enabled else { return }
        let thread = Thread { [weak self] in
            while let self {
                Thread.sleep(forTimeInterval: 0.1)
                self.flush()
            }
        }
        thread.name = "access-log"
        thread.start()
    }

    public func record(method: String, path: String, status: Int, seconds: Double, now: Int64) {
        guard enabled else { return }
        let line = AccessLogFormatting.line(method: method, path: path, status: status, seconds: seconds, now: now)
        let full = buffer.withLock { bytes -> Bool in
            bytes.append(contentsOf: line.utf8)
            return bytes.count >= flushLimit
        }
        if full { flush() }
    }

    /// Writes what is buffered; also called at shutdown so no line is lost.
    public func flush() {
        let pending = buffer.withLock { bytes -> [UInt8] in
            let out = bytes
            bytes.removeAll(keepingCapacity: true)
            return out
        }
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = write(STDOUT_FILENO, base + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
    }
}

/// The access log's line format.
enum AccessLogFormatting {
    /// `<time> <method> <path> <status> <ms>ms`; `path` is the request path without its query.
    static func line(method: String, path: String, status: Int, seconds: Double, now: Int64) -> String {
        "\(Timestamp.iso8601(millis: now)) \(method) \(path) \(status) \(String(format: "%.3f", seconds * 1000))ms\n"
    }
}
