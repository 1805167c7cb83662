import Glibc
import Synchronization

/// The expiry clocks' file (`<data-dir>/expiry-clocks`): when sessions with a `ttlSeconds` were
/// last requested, for those whose last request came after their last applied action (an
/// action's time is in the journal already). docs/API.md "Lifecycle": a session expires
/// `ttlSeconds` after its last request or applied action, and a restart does not reset the clock.
///
/// Lines of `<id> <milliseconds>\n`, appended; the newest time of an id wins, and a line cut
/// short by a crash is skipped. Nothing is written per request: the expiry sweep appends the
/// clocks that moved (`SessionRegistry.recordExpiryClocks`), a session's at most once per tenth
/// of its TTL (at most a minute) while it keeps being read and exactly once it goes idle, and a
/// graceful shutdown appends every clock exactly. The file is rewritten with one line per live
/// session at start and whenever the appends have grown it past `compactAfterBytes`. The
/// journal ignores it: its name has none of the journal's suffixes.
///
/// ```swift
/// let clocks = ExpiryClocks(directory: "./data")   // reads what the file holds
/// clocks.recorded("abc")                            // the last request before the restart
/// clocks.append([("abc", now)])
/// ```
final class ExpiryClocks: Sendable {
    static let fileName = "expiry-clocks"
    /// Appends past this many bytes make the sweep rewrite the file from the live sessions.
    static let compactAfterBytes = 4 << 20

    let path: String
    /// What the file held when the server started: read by recovery, then let go
    /// (`takeRecordedAtStart`), so it costs no memory while the server runs.
    private let atStart: Mutex<[String: Int64]>
    /// The open file (appends) and the bytes appended since it was last rewritten.
    private let file = Mutex<(fd: Int32, appended: Int)>((-1, 0))

    init(directory: String) {
        path = directory + "/" + Self.fileName
        atStart = Mutex(Self.load(path))
    }

    /// The last request of session `id` the file held at start, until recovery is over.
    func recorded(_ id: String) -> Int64? { atStart.withLock { $0[id] } }

    /// What the file held at start, once: recovery is over, and the sessions hold their clocks.
    func takeRecordedAtStart() -> [String: Int64] {
        atStart.withLock { clocks in
            defer { clocks = [:] }
            return clocks
        }
    }

    deinit {
        file.withLock { if $0.fd >= 0 { Glibc.close($0.fd) } }
    }

    /// Appends one line per clock. Not synced: a crash of the process keeps what the kernel has;
    /// a power cut may lose the last lines, which brings an expiry forward, never puts it off.
    func append(_ clocks: [(id: String, millis: Int64)]) {
        guard !clocks.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(clocks.count * 40)
        for (id, millis) in clocks { Self.appendLine(id, millis, to: &bytes) }
        file.withLock { state in
            if state.fd < 0 {
                state.fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
                guard state.fd >= 0 else { return ServerLog.error("cannot open \(path): errno \(errno); expiry clocks go on from the last action after a restart") }
                // A line a crash cut short ends here, so the next one starts on a line of its own.
                let size = lseek(state.fd, 0, SEEK_END)
                var last: UInt8 = 0
                if size > 0, pread(state.fd, &last, 1, size - 1) == 1, last != UInt8(ascii: "\n") { bytes.insert(UInt8(ascii: "\n"), at: 0) }
            }
            if Self.writeAll(state.fd, bytes) { state.appended += bytes.count }
        }
    }

    /// Whether the appends have grown the file enough to rewrite it.
    var wantsCompaction: Bool { file.withLock { $0.appended > Self.compactAfterBytes } }

    /// Replaces the file with `clocks` (one line per live session): written to a temporary file,
    /// synced, renamed into place, so a crash leaves the old file or the new one.
    func rewrite(_ clocks: [(id: String, millis: Int64)]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(clocks.count * 40)
        for (id, millis) in clocks { Self.appendLine(id, millis, to: &bytes) }
        let temp = path + ".tmp"
        file.withLock { state in
            let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return ServerLog.error("cannot write \(temp): errno \(errno)") }
            let written = Self.writeAll(fd, bytes) && fsync(fd) == 0
            Glibc.close(fd)
            guard written, rename(temp, path) == 0 else {
                unlink(temp)
                return ServerLog.error("cannot rewrite \(path): errno \(errno)")
            }
            if state.fd >= 0 { Glibc.close(state.fd) }
            state = (-1, 0)
        }
    }

    /// Syncs the appends (at shutdown, after the last of them).
    func sync() {
        file.withLock { if $0.fd >= 0 { _ = fsync($0.fd) } }
    }

    private static func appendLine(_ id: String, _ millis: Int64, to bytes: inout [UInt8]) {
        bytes += id.utf8
        bytes.append(UInt8(ascii: " "))
        bytes += String(millis).utf8
        bytes.append(UInt8(ascii: "\n"))
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    /// The newest time of each id in the file; empty when there is none. A line that is not
    /// `<id> <digits>` (the torn end of an append) is skipped.
    static func load(_ path: String) -> [String: Int64] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [:] }
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        var clocks: [String: Int64] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { continue }
            let id = String(decoding: line[line.startIndex..<space], as: UTF8.self)
            let digits = line[(space + 1)...]
            guard Secrets.isWellFormedID(id), !digits.isEmpty, digits.count <= 18,
                  digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let millis = Int64(String(decoding: digits, as: UTF8.self)) else { continue }
            clocks[id] = max(clocks[id] ?? millis, millis)
        }
        return clocks
    }
}
