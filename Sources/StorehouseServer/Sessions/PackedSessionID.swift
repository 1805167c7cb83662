/// A session id (at most 64 bytes, `FileNames.isValidSessionID`) in 64 bytes of plain storage:
/// a million of them cost no allocation and no reference count each, as `String`s would (a
/// 22-character id is a 64-byte heap object beside its 16-byte handle). The bytes are packed
/// big-endian, padded with zeros, so comparing the words compares the ids as strings do.
///
/// ```swift
/// let id = PackedSessionID("3q2-7wBqT0uX2mYw9bZ1Qg")!
/// id.string          // "3q2-7wBqT0uX2mYw9bZ1Qg"
/// id < PackedSessionID("3q3")!   // true, as for the strings
/// ```
struct PackedSessionID: Hashable, Comparable, Sendable {
    private var words: SIMD8<UInt64>

    /// Nil for an id that is empty, longer than 64 bytes, or holds a zero byte.
    init?(_ id: String) {
        var words = SIMD8<UInt64>()
        var count = 0
        for byte in id.utf8 {
            guard byte != 0, count < 64 else { return nil }
            words[count >> 3] |= UInt64(byte) << (56 - 8 * UInt64(count & 7))
            count += 1
        }
        guard count > 0 else { return nil }
        self.words = words
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
        for index in 0..<64 {
            let byte = UInt8(truncatingIfNeeded: words[index >> 3] >> (56 - 8 * UInt64(index & 7)))
            if byte == 0 { return }
            body(byte)
        }
    }

    static func < (a: Self, b: Self) -> Bool {
        for index in 0..<8 where a.words[index] != b.words[index] { return a.words[index] < b.words[index] }
        return false
    }
}
