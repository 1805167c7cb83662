import Foundation
import HTTPEngine
import StoreCore
import Synchronization
import SystemSupport

/// One line per request on standard output: time, method, path (never the query,
/// which may carry `access_token`), status and duration.
///
/// Lines are gathered in memory and written by a background thread every 100 ms,
/// so an I/O thread never waits on the terminal or a pipe.
public final class AccessLog: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
    }
    private let pending = Mutex(Pending())
    private let bufferCap = 8 << 20
    let enabled: Bool

    public init(enabled: Bool) {
        self.enabled = enabled
        guard enabled else { return }
        NamedThread.start("access-log") { [weak self] in
            while let self {
                Thread.sleep(forTimeInterval: 0.1)
                self.flush()
            }
        }
    }

    public func record(method: String, path: String, status: Int, seconds: Double, now: Int64) {
        guard enabled else { return }
        // Written straight into the shared buffer: no String per line, and never a write(2) here,
        // because this runs on I/O threads and on the journal's thread. Past the cap, lines are
        // counted and dropped rather than letting a slow stdout hold up requests.
        pending.withLock { p in
            if p.bytes.count < bufferCap {
                AccessLogFormatting.append(method: method, path: path, status: status, seconds: seconds, now: now, to: &p.bytes)
            } else {
                p.dropped += 1
            }
        }
    }

    /// Writes what is buffered; also called at shutdown so no line is lost.
    public func flush() {
        var taken = pending.withLock { p -> Pending in
            let out = p
            p = Pending()
            p.bytes.reserveCapacity(out.bytes.count)
            return out
        }
        if taken.dropped > 0 { taken.bytes += Array("access log: \(taken.dropped) lines dropped (stdout too slow)\n".utf8) }
        guard !taken.bytes.isEmpty else { return }
        taken.bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = write(STDOUT_FILENO, base + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
    }
}

/// The access log's line format: `<time> <method> <path> <status> <ms>ms`, where `path`
/// is the request path without its query (so never an `access_token`).
enum AccessLogFormatting {
    static func append(method: String, path: String, status: Int, seconds: Double, now: Int64, to bytes: inout [UInt8]) {
        Timestamp.append(millis: now, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: method.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: path.utf8)
        bytes.append(UInt8(ascii: " "))
        appendDecimal(status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        // Milliseconds with three decimals, from integer microseconds.
        let micros = max(0, Int((seconds * 1_000_000).rounded()))
        appendDecimal(micros / 1_000, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        let fraction = micros % 1_000
        bytes.append(UInt8(48 + fraction / 100))
        bytes.append(UInt8(48 + fraction / 10 % 10))
        bytes.append(UInt8(48 + fraction % 10))
        bytes.append(contentsOf: "ms\n".utf8)
    }

    static func line(method: String, path: String, status: Int, seconds: Double, now: Int64) -> String {
        var bytes: [UInt8] = []
        append(method: method, path: path, status: status, seconds: seconds, now: now, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &bytes) }
        bytes.append(UInt8(48 + value % 10))
    }
}
