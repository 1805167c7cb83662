import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One SSE subscriber of `storehouse-bench sse-fanout`, as `../shared/bench/sse-fanout.py`'s
/// `Subscriber` reads it: the HTTP/1.1 response head, chunked framing (or raw bytes until close),
/// then SSE lines. Per event it only looks at `event:` and `id:` (and, when there is no usable id,
/// at the first `"version":N` in `data:`); nothing is JSON-decoded. Lines are parsed in place in the
/// read buffer; only a line cut by a read or a chunk boundary is copied.
/// Owned by one `SSEFanoutWorker` and touched only on its thread.
final class SSEFanoutStream {
    enum Kind: UInt8 { case other, change, snapshot }

    let fd: Int32
    /// Set when the head arrived with a status other than 200.
    var error: String?
    /// The peer closed (EOF or error).
    var closed = false
    /// The version of the first snapshot; nil until it arrives.
    var snapshotVersion: Int?
    /// Had a snapshot when the run started posting (sse-fanout.py's `live`).
    var live = false
    /// Already counted towards the drain target version.
    var hasTarget = false
    var dups = 0
    var outOfOrder = 0
    var lastVersion = -1
    /// Receive time (monotonic ns, never 0) of the change event for version v, 0 if none yet.
    private(set) var received: [Int64] = []
    private var receivedFar: [Int: Int64] = [:]
    static let directVersions = 1 << 20

    private var headDone = false
    private var head: [UInt8] = []
    private var chunked = false
    private enum ChunkState { case size, data, crlf, end }
    private var chunkState = ChunkState.size
    private var chunkLeft = 0
    private var sizeLine: [UInt8] = []
    private var crlfLeft = 2
    /// The current SSE line when it spans two reads or two chunks.
    private var line: [UInt8] = []
    private var eventKind = Kind.other
    /// -1: no id line (or empty); -2: an id that is not a decimal number.
    private var eventID = -1
    private var eventDataVersion = -1

    init(fd: Int32) { self.fd = fd }

    func receiveTime(of version: Int) -> Int64? {
        if version >= 0 && version < received.count {
            let t = received[version]
            return t == 0 ? nil : t
        }
        return version >= Self.directVersions ? receivedFar[version] : nil
    }

    /// Feeds bytes just read; `now` is the read's time. Returns what happened to the snapshot and the target.
    /// `onChange` is called with each change version (the worker counts the drain target with it).
    func feed(_ bytes: UnsafeRawBufferPointer, now: Int64, onSnapshot: () -> Void, onChange: (Int) -> Void) {
        guard error == nil, var p = bytes.baseAddress else { return }
        var n = bytes.count
        if !headDone {
            // The head is small: gather it until the blank line, then go on with the rest of this read.
            let start = head.count
            head.append(contentsOf: bytes)
            guard let end = Self.find(head, [0x0D, 0x0A, 0x0D, 0x0A], from: max(0, start - 3)) else {
                if head.count > 64 << 10 { error = "response head too long"; closed = true }
                return
            }
            headDone = true
            parseHead(Array(head[0..<end]))
            let consumed = end + 4 - start
            head = []
            if error != nil { return }
            p += consumed
            n -= consumed
            if n <= 0 { return }
        }
        if chunked {
            dechunk(p, n, now: now, onSnapshot: onSnapshot, onChange: onChange)
        } else {
            lines(p, n, now: now, onSnapshot: onSnapshot, onChange: onChange)
        }
    }

    private func parseHead(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first.map { $0.split(separator: " ") } ?? []
        let status = statusLine.count > 1 ? Int(statusLine[1]) ?? -1 : -1
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            if name == "transfer-encoding" && line[line.index(after: colon)...].lowercased().contains("chunked") { chunked = true }
        }
        if status != 200 { error = "status \(status)" }
    }

    /// RFC 9112 §7.1 chunk framing, incrementally; chunk data goes straight to the line parser.
    private func dechunk(_ base: UnsafeRawPointer, _ n: Int, now: Int64, onSnapshot: () -> Void, onChange: (Int) -> Void) {
        var pos = 0
        while pos < n {
            switch chunkState {
            case .size:
                let byte = base.load(fromByteOffset: pos, as: UInt8.self)
                pos += 1
                if byte != 0x0A {
                    if sizeLine.count > 1024 { error = "chunk size line too long"; closed = true; return }
                    sizeLine.append(byte)
                    continue
                }
                // The size is the hex number before any ';' extension (sse-fanout.py: int(x.split(b";")[0], 16)).
                var size = 0
                var digits = 0
                var valid = true
                for b in sizeLine {
                    if b == 0x3B { break }
                    if b == 0x0D || b == 0x20 || b == 0x09 { continue }
                    guard let d = Self.hexValue(b), size < (1 << 40) else { valid = false; break }
                    size = size * 16 + d
                    digits += 1
                }
                sizeLine.removeAll(keepingCapacity: true)
                guard valid, digits > 0 else { error = "bad chunk size"; closed = true; return }
                if size == 0 {
                    chunkState = .end
                } else {
                    chunkLeft = size
                    chunkState = .data
                }
            case .data:
                let take = min(chunkLeft, n - pos)
                lines(base + pos, take, now: now, onSnapshot: onSnapshot, onChange: onChange)
                pos += take
                chunkLeft -= take
                if chunkLeft == 0 {
                    chunkState = .crlf
                    crlfLeft = 2
                }
            case .crlf:
                let take = min(crlfLeft, n - pos)
                pos += take
                crlfLeft -= take
                if crlfLeft == 0 { chunkState = .size }
            case .end:
                return
            }
        }
    }

    /// Splits SSE text into lines (LF, with an optional CR before it); a blank line ends an event.
    private func lines(_ base: UnsafeRawPointer, _ n: Int, now: Int64, onSnapshot: () -> Void, onChange: (Int) -> Void) {
        var pos = 0
        while pos < n {
            guard let hit = memchr(base + pos, 0x0A, n - pos) else {
                line.append(contentsOf: UnsafeRawBufferPointer(start: base + pos, count: n - pos))
                return
            }
            let end = UnsafeRawPointer(hit) - base
            if line.isEmpty {
                lineDone(UnsafeRawBufferPointer(start: base + pos, count: end - pos), now: now, onSnapshot: onSnapshot, onChange: onChange)
            } else {
                line.append(contentsOf: UnsafeRawBufferPointer(start: base + pos, count: end - pos))
                var whole: [UInt8] = []
                swap(&whole, &line)
                whole.withUnsafeBytes { lineDone($0, now: now, onSnapshot: onSnapshot, onChange: onChange) }
                whole.removeAll(keepingCapacity: true)
                swap(&whole, &line)
            }
            pos = end + 1
        }
    }

    private func lineDone(_ raw: UnsafeRawBufferPointer, now: Int64, onSnapshot: () -> Void, onChange: (Int) -> Void) {
        var n = raw.count
        if n > 0 && raw[n - 1] == 0x0D { n -= 1 }
        if n == 0 {
            dispatch(now: now, onSnapshot: onSnapshot, onChange: onChange)
            return
        }
        let line = UnsafeRawBufferPointer(rebasing: raw[0..<n])
        if Self.hasPrefix(line, "id:") {
            eventID = Self.decimal(line, from: 3)
        } else if Self.hasPrefix(line, "event:") {
            let (start, end) = Self.trimmed(line, from: 6)
            let value = UnsafeRawBufferPointer(rebasing: line[start..<end])
            eventKind = Self.equals(value, "change") ? .change : Self.equals(value, "snapshot") ? .snapshot : .other
        } else if Self.hasPrefix(line, "data:") {
            // The data's version is needed only when the id cannot be used (and for snapshots).
            if eventDataVersion < 0 && !(eventKind == .change && eventID >= 0) {
                eventDataVersion = Self.versionField(line, from: 5)
            }
        }
    }

    private func dispatch(now: Int64, onSnapshot: () -> Void, onChange: (Int) -> Void) {
        defer {
            eventKind = .other
            eventID = -1
            eventDataVersion = -1
        }
        switch eventKind {
        case .change:
            let v = eventID >= 0 ? eventID : eventDataVersion
            guard v >= 0 else { return }
            if receiveTime(of: v) != nil {
                dups += 1
            } else {
                record(v, now)
                onChange(v)
            }
            if v <= lastVersion { outOfOrder += 1 }
            lastVersion = max(lastVersion, v)
        case .snapshot:
            let v = eventDataVersion >= 0 ? eventDataVersion : max(0, eventID)
            if snapshotVersion == nil {
                snapshotVersion = v
                lastVersion = v
                onSnapshot()
            }
        case .other:
            return
        }
    }

    private func record(_ v: Int, _ now: Int64) {
        if v < Self.directVersions {
            if v >= received.count {
                received.append(contentsOf: repeatElement(0, count: max(v + 1 - received.count, 256)))
            }
            received[v] = now
        } else {
            receivedFar[v] = now
        }
    }

    // MARK: byte helpers

    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: return Int(b - 0x30)
        case 0x41...0x46: return Int(b - 0x41 + 10)
        case 0x61...0x66: return Int(b - 0x61 + 10)
        default: return nil
        }
    }

    static func find(_ hay: [UInt8], _ needle: [UInt8], from: Int) -> Int? {
        guard hay.count >= needle.count else { return nil }
        var i = from
        while i + needle.count <= hay.count {
            if hay[i] == needle[0] && hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    static func hasPrefix(_ line: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard line.count >= count else { return false }
        let p = prefix.utf8Start
        for i in 0..<count where line[i] != p[i] { return false }
        return true
    }

    static func equals(_ value: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        value.count == word.utf8CodeUnitCount && hasPrefix(value, word)
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A || b == 0x0B || b == 0x0C }

    /// The value after a field name with surrounding whitespace removed (Python's bytes.strip()).
    static func trimmed(_ line: UnsafeRawBufferPointer, from: Int) -> (Int, Int) {
        var start = from
        var end = line.count
        while start < end && isSpace(line[start]) { start += 1 }
        while end > start && isSpace(line[end - 1]) { end -= 1 }
        return (start, end)
    }

    /// A decimal id: -1 when empty, -2 when not a number.
    static func decimal(_ line: UnsafeRawBufferPointer, from: Int) -> Int {
        let (start, end) = trimmed(line, from: from)
        guard start < end else { return -1 }
        var value = 0
        for i in start..<end {
            let b = line[i]
            guard b >= 0x30 && b <= 0x39, value < Int.max / 10 - 10 else { return -2 }
            value = value * 10 + Int(b - 0x30)
        }
        return value
    }

    /// The number in the first `"version"\s*:\s*(\d+)` of a data line, or -1.
    static func versionField(_ line: UnsafeRawBufferPointer, from: Int) -> Int {
        let key: StaticString = "\"version\""
        let k = key.utf8CodeUnitCount
        var i = from
        while i + k <= line.count {
            if line[i] == 0x22 && hasPrefix(UnsafeRawBufferPointer(rebasing: line[i..<line.count]), key) {
                var j = i + k
                while j < line.count && isSpace(line[j]) { j += 1 }
                if j < line.count && line[j] == 0x3A {
                    j += 1
                    while j < line.count && isSpace(line[j]) { j += 1 }
                    var value = 0
                    var digits = 0
                    while j < line.count, line[j] >= 0x30, line[j] <= 0x39, value < Int.max / 10 - 10 {
                        value = value * 10 + Int(line[j] - 0x30)
                        digits += 1
                        j += 1
                    }
                    if digits > 0 { return value }
                }
            }
            i += 1
        }
        return -1
    }
}
