import Foundation

/// Random identifiers and tokens, and the constant-time comparison that checks them.
public enum Secrets {
    /// `count` bytes from the system's secure source (`getrandom(2)` behind
    /// `SystemRandomNumberGenerator`), as unpadded base64url (RFC 4648 §5).
    public static func randomBase64URL(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        for i in bytes.indices { bytes[i] = generator.next() }
        return base64URL(bytes)
    }

    /// Unpadded base64url of `bytes`.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths,
    /// so a wrong token teaches an attacker nothing about the right one.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// `constantTimeEqual` against bytes that are not (yet) an array, such as a header's token.
    public static func constantTimeEqual(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.withUnsafeBytes { constantTimeEqual($0, b) }
    }

    public static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress, let right = b.baseAddress.map(UnsafeRawPointer.init) else { return true }
        // Eight bytes a step, every step taken whatever differs: the time still depends on the
        // length alone (a 43-byte token costs 6 steps, not 43).
        var difference: UInt64 = 0
        var offset = 0
        while offset + 8 <= a.count {
            difference |= left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < a.count {
            difference |= UInt64(left.load(fromByteOffset: offset, as: UInt8.self) ^ right.load(fromByteOffset: offset, as: UInt8.self))
            offset += 1
        }
        return difference == 0
    }

    /// Whether `text` could be a session id: base64url characters, 1...64 of them, optionally
    /// after a node id and a dot (`web-1.3q2-7wBqT0uX2mYw9bZ1Qg`, API.md "Cluster").
    /// Ids name files in the data directory, so nothing else may pass.
    public static func isWellFormedID(_ text: some StringProtocol) -> Bool {
        // Over contiguous bytes when the string has them (every native string): no index checks per byte.
        text.utf8.withContiguousStorageIfAvailable(isWellFormedID(bytes:)) ?? Array(text.utf8).withUnsafeBufferPointer(isWellFormedID(bytes:))
    }

    static func isWellFormedID(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        // Every request on a session route asks: the run of base64url characters (a whole id
        // without a node) costs one load from a 256-entry table a byte, and only a byte that
        // ends it early, the node's dot or a bad one, is looked at further.
        let first = base64URLBytes.withUnsafeBufferPointer { table in
            var index = 0
            while index < bytes.count && table[Int(bytes[index])] { index += 1 }
            return index
        }
        if first == bytes.count { return true }
        guard bytes[first] == UInt8(ascii: ".") else { return false }
        for c in bytes[(first + 1)...] where !base64URLByte(c) { return false }
        return first + 1 < bytes.count && NodeRouting.isValidNodeID(bytes: UnsafeBufferPointer(rebasing: bytes[..<first]))
    }

    /// `base64URLByte` for every byte value, read by `isWellFormedID`'s loop.
    private static let base64URLBytes: [Bool] = (0...255).map { base64URLByte(UInt8($0)) }

    /// Whether `c` is a base64url character (RFC 4648 §5): `0-9`, `A-Z`, `a-z`, `-`, `_`, one
    /// bit each of two 64-bit masks (bytes 0–63, bytes 64–127).
    @inline(__always)
    static func base64URLByte(_ c: UInt8) -> Bool {
        // `-` is 45, `0-9` 48–57; `A-Z` 65–90, `_` 95, `a-z` 97–122.
        let low: UInt64 = 1 << 45 | 0x3FF << 48
        let high: UInt64 = 0x3FF_FFFF << 1 | 1 << 31 | 0x3FF_FFFF << 33
        guard c < 128 else { return false }
        return ((c < 64 ? low : high) >> UInt64(c & 63)) & 1 == 1
    }

    /// Hex of a digest, for logs and stored metadata.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
