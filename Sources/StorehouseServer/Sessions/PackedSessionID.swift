/// A session id (at most 64 bytes, `FileNames.isValidSessionID`) in 64 bytes of plain storage:
/// a million of them cost no allocation and no reference count each, as `String`s would (a
/// 22-character id is a 64-byte heap object beside its 16-byte handle). The bytes lie in the
/// words as in memory, padded with zeros: a request's id is packed by one copy of the path's
/// bytes, and ordering reads each word big-endian, so it orders the ids as strings do.
///
/// ```swift
/// let id = PackedSessionID("3q2-7wBqT0uX2mYw9bZ1Qg")!
/// id.string          // "3q2-7wBqT0uX2mYw9bZ1Qg"
/// id < PackedSessionID("3q3")!   // true, as for the strings
/// ```
struct PackedSessionID: Hashable, Comparable, Sendable {
    private typealias Words = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    private var words: Words = (0, 0, 0, 0, 0, 0, 0, 0)

    /// The empty id, which no session has.
    init() {}

    /// Nil for an id that is empty, longer than 64 bytes, or holds a zero byte.
    init?(_ id: String) {
        var count = 0
        let fits = withUnsafeMutableBytes(of: &words) { raw -> Bool in
            for byte in id.utf8 {
                guard byte != 0, count < 64 else { return false }
                raw[count] = byte
                count += 1
            }
            return true
        }
        guard fits, count > 0 else { return nil }
    }

    /// The id in `bytes` when it is well-formed (`Secrets.isWellFormedID`), packed without
    /// making a string: the router reads a request's id off its path this way.
    init?(wellFormed bytes: UnsafeBufferPointer<UInt8>) {
        guard Secrets.isWellFormedID(bytes: bytes), let base = bytes.baseAddress else { return nil }
        withUnsafeMutableBytes(of: &words) { $0.baseAddress?.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// Whether the id names a node (`web-1.…`, API.md "Cluster"): it holds a dot.
    var hasNode: Bool {
        withUnsafeBytes(of: words) { raw in
            for index in 0..<8 {
                let word = raw.load(fromByteOffset: index * 8, as: UInt64.self)
                if word == 0 { return false }
                // A byte of the word is "." (0x2E) where `word ^ 0x2E2E…` has a zero byte.
                let x = word ^ 0x2E2E_2E2E_2E2E_2E2E
                if (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0 { return true }
            }
            return false
        }
    }

    /// Hashes the words up to the first empty one: an id of 22 bytes costs three words of
    /// hashing, not eight. Equal ids have equal words, so they hash alike.
    func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: words) { raw in
            for index in 0..<8 {
                let word = raw.load(fromByteOffset: index * 8, as: UInt64.self)
                if word == 0 { return }
                hasher.combine(word)
            }
        }
    }

    static func == (a: Self, b: Self) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
            && a.words.4 == b.words.4 && a.words.5 == b.words.5 && a.words.6 == b.words.6 && a.words.7 == b.words.7
    }

    var string: String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            var count = 0
            forEachByte { byte in
                buffer[count] = byte
                count += 1
            }
            return count
        }
    }

    /// Appends the id's bytes to `out` (a listing page), making no string.
    func append(to out: inout [UInt8]) {
        forEachByte { out.append($0) }
    }

    private func forEachByte(_ body: (UInt8) -> Void) {
        withUnsafeBytes(of: words) { raw in
            for index in 0..<64 {
                let byte = raw[index]
                if byte == 0 { return }
                body(byte)
            }
        }
    }

    /// As the strings compare: bytewise, a prefix first. Each word read big-endian compares its
    /// eight bytes in order, and the zero padding sorts a prefix before the ids it starts.
    static func < (a: Self, b: Self) -> Bool {
        withUnsafeBytes(of: a.words) { left in
            withUnsafeBytes(of: b.words) { right in
                for index in 0..<8 {
                    let x = UInt64(bigEndian: left.load(fromByteOffset: index * 8, as: UInt64.self))
                    let y = UInt64(bigEndian: right.load(fromByteOffset: index * 8, as: UInt64.self))
                    if x != y { return x < y }
                }
                return false
            }
        }
    }
}
