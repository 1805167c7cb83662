/// File names inside the journal directory. One flat directory, every file prefixed by its session id
/// (ids cannot contain '.', so `<id>.` never matches another session's files):
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

    /// `[A-Za-z0-9_-]{1,64}`: nothing else can reach the file system.
    /// Checked on every append: read from the string's contiguous bytes, not through its UTF-8 view
    /// (which cost ~40 instructions a byte).
    static func isValidSessionID(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 64 else { return false }
            return bytes.allSatisfy { b in
                switch b {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
        }
    }

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

    static func parse(_ name: String) -> Parsed? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, isValidSessionID(String(parts[0])) else { return nil }
        let id = String(parts[0])
        if parts.count == 3, parts[2] == "log", parts[1].count == 8 || parts[1].count > 8, let seq = Int(parts[1]), seq > 0 {
            return .segment(id: id, seq: seq)
        }
        if parts.count == 3, parts[2] == "torn", parts[1].count >= 8, let seq = Int(parts[1]), seq > 0 {
            return .tornCopy(id: id, seq: seq)
        }
        if parts.count == 2, parts[1] == "snap" { return .snapshot(id: id) }
        if parts.count == 3, parts[1] == "snap", parts[2] == "tmp" { return .snapshotTemp(id: id) }
        if parts.count == 3, parts[1] == "snap", parts[2] == "prev" { return .snapshotPrevious(id: id) }
        if parts.count == 3, parts[1] == "snap", parts[2] == "corrupt" { return .snapshotCorrupt(id: id) }
        return nil
    }
}
