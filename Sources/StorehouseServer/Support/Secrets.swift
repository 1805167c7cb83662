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
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// Whether `text` could be a session id: base64url characters, 1...64 of them, optionally
    /// after a node id and a dot (`web-1.3q2-7wBqT0uX2mYw9bZ1Qg`, API.md "Cluster").
    /// Ids name files in the data directory, so nothing else may pass.
    public static func isWellFormedID(_ text: some StringProtocol) -> Bool {
        // Over contiguous bytes when the string has them (every native string): no index checks per byte.
        text.utf8.withContiguousStorageIfAvailable(isWellFormedID(bytes:)) ?? Array(text.utf8).withUnsafeBufferPointer(isWellFormedID(bytes:))
    }

    private static func isWellFormedID(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        func allowed(_ c: UInt8) -> Bool {
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return bytes.allSatisfy(allowed) }
        let random = UnsafeBufferPointer(rebasing: bytes[(dot + 1)...])
        return NodeRouting.isValidNodeID(bytes: UnsafeBufferPointer(rebasing: bytes[..<dot])) && !random.isEmpty && random.allSatisfy(allowed)
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
