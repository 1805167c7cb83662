/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), slicing-by-8.
///
/// Castagnoli rather than the zlib CRC because it detects more error patterns in
/// the record sizes we write (RFC 3720 §B.4 chose it for iSCSI for the same reason).
///
///     CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283
public enum CRC32C {
    /// Eight 256-entry tables laid end to end: table k folds a byte that is k positions further away.
    static let table: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            t[i] = c
        }
        for k in 1..<8 {
            for i in 0..<256 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (prev >> 8) ^ t[Int(prev & 0xFF)]
            }
        }
        return t
    }()

    /// The checksum of `bytes`; pass a previous result as `continuing` to checksum a concatenation.
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing: UInt32 = 0) -> UInt32 {
        table.withUnsafeBufferPointer { t in
            var crc = ~continuing
            var i = 0
            let n = bytes.count
            guard let base = bytes.baseAddress else { return continuing }
            while n - i >= 8 {
                let one = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ crc
                let two = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
                crc = t[7 * 256 + Int(one & 0xFF)] ^ t[6 * 256 + Int((one >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((one >> 16) & 0xFF)] ^ t[4 * 256 + Int(one >> 24)]
                    ^ t[3 * 256 + Int(two & 0xFF)] ^ t[2 * 256 + Int((two >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((two >> 16) & 0xFF)] ^ t[Int(two >> 24)]
                i += 8
            }
            while i < n {
                crc = t[Int((crc ^ UInt32(base.load(fromByteOffset: i, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                i += 1
            }
            return ~crc
        }
    }

    /// The checksum of a byte array.
    public static func checksum(_ bytes: [UInt8], continuing: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: continuing) }
    }
}
