/// File names inside the journal directory. One flat directory, every file prefixed by its session id
/// (an id holds at most one '.', between a node id and the random part, and every suffix below
/// ends in a word an id's last part cannot be followed by alone, so a name parses one way only):
///
///     <id>.<seq, 8 digits>.log   segment: meta record, then records
///     <id>.snap                  newest snapshot (one frame)
///     <id>.snap.prev             the snapshot before it: recovery's fallback when `.snap` is damaged
///     <id>.snap.tmp              snapshot being written (removed at recovery)
///     <id>.snap.corrupt          a damaged `.snap` that recovery fell back from, kept for inspection
///     <id>.<seq>.torn            bytes recovery cut off segment <seq> as a torn write whose end had
///                                landed (torn or damaged, they look alike), kept for inspection
///     LOCK                       flock'd by the process that owns the directory
enum FileNames {
    static let lock = "LOCK"

    /// `[A-Za-z0-9_-]{1,64}`, or two such parts joined by one '.' (`<node>.<random>`, 64 bytes in
    /// all): nothing else can reach the file system, and no id is `.` or `..` or holds a '/'.
    /// Checked for every session created, read or deleted, and for an append to an unknown one:
    /// read from the string's contiguous bytes, not through its UTF-8 view (~40 instructions a byte).
    static func isValidSessionID(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= 64 else { return false }
            let count = bytes.count
            var dot = false
            var index = 0
            while index < count {
                let b = base[index]
                // One shift and mask a byte: bit `b` of `idBytesBelow64` / bit `b - 64` of
                // `idBytesBelow128` is set when `b` may be in an id's part.
                let allowed = b < 64 ? (idBytesBelow64 >> UInt64(b)) & 1 != 0
                    : b < 128 && (idBytesBelow128 >> UInt64(b - 64)) & 1 != 0
                if !allowed {
                    guard b == UInt8(ascii: "."), !dot, index > 0, index < count - 1 else { return false }
                    dot = true
                }
                index += 1
            }
            return true
        }
    }

    /// `0-9` and `-`.
    private static let idBytesBelow64: UInt64 = 0x03FF_2000_0000_0000
    /// `A-Z`, `_` and `a-z`.
    private static let idBytesBelow128: UInt64 = 0x07FF_FFFE_87FF_FFFE

    static func segment(_ id: String, _ seq: Int) -> String {
        let digits = String(seq)
        return id + "." + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".log"
    }

    static func snapshot(_ id: String) -> String { id + ".snap" }
    static func snapshotTemp(_ id: String) -> String { id + ".snap.tmp" }
    static func snapshotPrevious(_ id: String) -> String { id + ".snap.prev" }
    static func snapshotCorrupt(_ id: String) -> String { id + ".snap.corrupt" }

    static func tornCopy(_ id: String, _ seq: Int) -> String {
        let digits = String(seq)
        return id + "." + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".torn"
    }

    enum Parsed: Equatable {
        case segment(id: String, seq: Int)
        case snapshot(id: String)
        case snapshotTemp(id: String)
        case snapshotPrevious(id: String)
        case snapshotCorrupt(id: String)
        case tornCopy(id: String, seq: Int)
    }

    /// The suffix is read from the end: its last word says how many parts it has (`snap`: one;
    /// `tmp`, `prev`, `corrupt`, `log`, `torn`: two), and what precedes it is the id.
    static func parse(_ name: String) -> Parsed? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard let last = parts.last, parts.count >= 2 else { return nil }
        let suffixParts = last == "snap" ? 1 : 2
        guard parts.count > suffixParts else { return nil }
        let id = parts[..<(parts.count - suffixParts)].joined(separator: ".")
        guard isValidSessionID(id) else { return nil }
        if suffixParts == 1 { return .snapshot(id: id) }
        let first = parts[parts.count - 2]
        if last == "log", first.count >= 8, let seq = Int(first), seq > 0 {
            return .segment(id: id, seq: seq)
        }
        if last == "torn", first.count >= 8, let seq = Int(first), seq > 0 {
            return .tornCopy(id: id, seq: seq)
        }
        guard first == "snap" else { return nil }
        switch last {
        case "tmp": return .snapshotTemp(id: id)
        case "prev": return .snapshotPrevious(id: id)
        case "corrupt": return .snapshotCorrupt(id: id)
        default: return nil
        }
    }
}
