/// The on-disk framing shared by segment and snapshot files.
///
///     offset 0  UInt32 LE  body length L (1 ... maxBody)
///     offset 4  UInt32 LE  CRC32C of bytes 0..<4 followed by the L body bytes
///     offset 8  body:      kind (1 byte), then
///                 meta:           format (1 byte) + opaque meta bytes
///                 record-end:     Int64 LE version + opaque bytes   (last record of an append)
///                 record-more:    Int64 LE version + opaque bytes   (an append continues)
///                 snapshot:       Int64 LE version + opaque bytes
///                 group-end:      Int64 LE synced-through offset           (format 2: ends each write)
///
/// The length is inside the checksum so a flipped length bit cannot pass as a valid frame.
enum Frame {
    static let headerSize = 8
    static let maxBody = 1 << 30
    /// The format new segments are written in (their meta record says which): 2 ends every
    /// write of the writer with a group-end frame; 1 has none.
    static let formatVersion: UInt8 = 2
    static let readableFormats: ClosedRange<UInt8> = 1...2

    enum Kind: UInt8 {
        case meta = 1, recordEnd = 2, recordMore = 3, snapshot = 4
        /// Ends one write of the writer (a group's share of a segment). Its version field holds the
        /// offset up to which the segment was known to be synced when the write was made: recovery
        /// tells a torn, never-synced tail (however its pages landed) from damage to synced bytes.
        case groupEnd = 5
    }

    /// Appends one frame; `version` is ignored for `.meta` (and is the synced-through offset for `.groupEnd`).
    static func append(kind: Kind, version: Int, payload: [UInt8], to out: inout [UInt8]) {
        let start = out.count
        let headLength = headerSize + (kind == .meta ? 2 : 9)
        // Zeros for the head, the payload, then the head's fields and the checksum written in
        // place: every record and every group's end goes through here.
        out.reserveCapacity(start + headLength + payload.count)
        out.append(contentsOf: zeroHead[..<headLength])
        out.append(contentsOf: payload)
        out.withUnsafeMutableBytes { raw in
            let frame = UnsafeMutableRawBufferPointer(rebasing: raw[start...])
            frame.storeBytes(of: UInt32(truncatingIfNeeded: frame.count - headerSize).littleEndian, as: UInt32.self)
            frame[headerSize] = kind.rawValue
            if kind == .meta {
                frame[headerSize + 1] = formatVersion
            } else {
                frame.storeBytes(of: Int64(version).littleEndian, toByteOffset: headerSize + 1, as: Int64.self)
            }
            let c = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: frame[..<4]))
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: frame[headerSize...]), continuing: c)
            frame.storeBytes(of: crc.littleEndian, toByteOffset: 4, as: UInt32.self)
        }
    }

    /// What `append` starts a frame's head from.
    private static let zeroHead = [UInt8](repeating: 0, count: headerSize + 9)

    /// The bytes `append` would put before `payload` (length, checksum, kind, version), for a
    /// payload written on its own: a snapshot's tens of megabytes go to disk from the buffer they
    /// were encoded into, never copied into a frame. Not for `.meta`.
    static func header(kind: Kind, version: Int, payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(headerSize + 9)
        appendUInt32(UInt32(truncatingIfNeeded: 9 + payload.count), to: &out)
        appendUInt32(0, to: &out)
        out.append(kind.rawValue)
        let v = UInt64(bitPattern: Int64(version))
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
        var crc = out.withUnsafeBytes { raw in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<4]), continuing: 0)
        }
        crc = out.withUnsafeBytes { raw in CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[8...]), continuing: crc) }
        crc = CRC32C.checksum(payload, continuing: crc)
        for i in 0..<4 { out[4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return out
    }

    static func size(kind: Kind, payloadCount: Int) -> Int {
        headerSize + (kind == .meta ? 2 : 9) + payloadCount
    }

    private static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    /// One decoded frame: `payload` is a range of the buffer it was parsed from.
    struct Parsed {
        var kind: Kind
        var version: Int
        var payload: Range<Int>
        var end: Int
        /// The format a meta record declares (0 for other kinds).
        var format: UInt8 = 0
    }

    enum Invalid: Error {
        case short, badLength(Int), checksum, badKind(UInt8), badFormat(UInt8)

        var reason: String {
            switch self {
            case .short: return "record header or body extends past the end of the file"
            case .badLength(let l): return "impossible record length \(l)"
            case .checksum: return "CRC32C mismatch"
            case .badKind(let k): return "unknown record kind \(k)"
            case .badFormat(let f): return "unknown format version \(f)"
            }
        }
    }

    /// Decodes the frame at `offset` of `buf` (whose valid bytes end at `buf.count`).
    static func parse(_ buf: UnsafeRawBufferPointer, at offset: Int) -> Result<Parsed, Invalid> {
        let remaining = buf.count - offset
        guard remaining >= headerSize else { return .failure(.short) }
        let length = Int(UInt32(littleEndian: buf.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        guard length >= 2, length <= maxBody else { return .failure(.badLength(length)) }
        guard length <= remaining - headerSize else { return .failure(.short) }
        let stored = UInt32(littleEndian: buf.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        let c = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buf[offset..<offset + 4]))
        let body = offset + headerSize
        let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buf[body..<body + length]), continuing: c)
        guard crc == stored else { return .failure(.checksum) }
        let rawKind = buf[body]
        guard let kind = Kind(rawValue: rawKind) else { return .failure(.badKind(rawKind)) }
        if kind == .meta {
            let format = buf[body + 1]
            guard readableFormats.contains(format) else { return .failure(.badFormat(format)) }
            return .success(Parsed(kind: kind, version: 0, payload: body + 2..<body + length, end: body + length, format: format))
        }
        guard length >= 9 else { return .failure(.badLength(length)) }
        let version = Int(Int64(littleEndian: buf.loadUnaligned(fromByteOffset: body + 1, as: Int64.self)))
        return .success(Parsed(kind: kind, version: version, payload: body + 9..<body + length, end: body + length))
    }

    /// True when every byte from `offset` to the end is zero (a preallocated, unwritten tail).
    static func onlyZeros(in buf: UnsafeRawBufferPointer, from offset: Int) -> Bool {
        var i = offset
        while i < buf.count {
            if buf[i] != 0 { return false }
            i += 1
        }
        return true
    }

    /// Whether a group-end frame after `offset` says the bytes at `offset` had been synced: then
    /// a later write was made on top of them, and a bad frame there is damage, not a torn write.
    /// A claim past the claiming frame's own position is not believed (no write claims itself).
    static func syncedPast(_ offset: Int, in buf: UnsafeRawBufferPointer) -> Bool {
        groupEnds(in: buf, after: offset) { q, f in f.version > offset && f.version <= q }
    }

    /// Whether any group-end frame follows `offset` (a segment whose meta record is the bad frame
    /// is format 2 if its own creation's group-end frame landed).
    static func groupEndExists(in buf: UnsafeRawBufferPointer, after offset: Int) -> Bool {
        groupEnds(in: buf, after: offset) { _, _ in true }
    }

    /// Where the last group-end frame after `offset` ends, if there is one.
    static func lastGroupEndEnd(in buf: UnsafeRawBufferPointer, after offset: Int) -> Int? {
        var end: Int?
        _ = groupEnds(in: buf, after: offset) { _, f in
            end = f.end
            return false
        }
        return end
    }

    /// Whether `match` holds for a group-end frame starting after `offset`. Such a frame is always
    /// 17 bytes, so only a body length of 9 and kind 5 are checksummed: trying a CRC wherever four
    /// bytes read as a plausible length took 1.6 s over a 4 MiB torn tail of binary records.
    private static func groupEnds(in buf: UnsafeRawBufferPointer, after offset: Int, _ match: (Int, Parsed) -> Bool) -> Bool {
        let size = headerSize + 9
        var q = offset + 1
        while q + size <= buf.count {
            if buf[q] == 9, buf[q + 1] == 0, buf[q + 2] == 0, buf[q + 3] == 0, buf[q + headerSize] == Kind.groupEnd.rawValue,
               case .success(let f) = parse(buf, at: q), match(q, f) {
                return true
            }
            q += 1
        }
        return false
    }

    /// Whether any valid frame starts after `offset`: in a format 1 segment, tells a corrupt record
    /// in the middle (good records follow) from a torn tail (nothing valid follows).
    static func validFrameExists(in buf: UnsafeRawBufferPointer, after offset: Int) -> Bool {
        var q = offset + 1
        while q + headerSize <= buf.count {
            let length = Int(UInt32(littleEndian: buf.loadUnaligned(fromByteOffset: q, as: UInt32.self)))
            if length >= 2, length <= buf.count - q - headerSize, case .success = parse(buf, at: q) { return true }
            q += 1
        }
        return false
    }
}
