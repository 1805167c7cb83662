import SessionCore
import StoreCore

/// The JSON forms of a logged action: in the action log, in `change` events and in journal records.
///
/// Keys are written in one fixed order (`type`, `payload`, `meta`, `at`, `source`),
/// so the same action is always the same bytes.
enum RecordCoding {
    /// `{"type":…,"payload":…,"meta":…,"at":"…","source":"…"}`; payload and meta omitted when absent.
    static func action(_ record: ActionRecord, version: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        appendAction(record, version: version, to: &out)
        return out
    }

    /// `action(_:version:)` written at the end of `out`: a log page, an export or an import's
    /// record writes thousands of entries into one buffer, with no array per entry or member.
    static func appendAction(_ record: ActionRecord, version: Int? = nil, to out: inout [UInt8]) {
        var w = JSONWriter(capacity: 0)
        swap(&w.bytes, &out)
        defer { swap(&w.bytes, &out) }
        w.beginObject()
        if let version { w.key(static: "version"); w.write(version) }
        w.key(static: "type"); w.write(record.type)
        if let payload = record.payload { w.key(static: "payload"); w.write(payload) }
        if let meta = record.meta { w.key(static: "meta"); w.write(meta) }
        w.bytes.append(contentsOf: #","at":""#.utf8)
        Timestamp.append(millis: record.at, to: &w.bytes)
        w.bytes.append(contentsOf: #"","source":""#.utf8)
        w.bytes.append(contentsOf: record.source.rawValue.utf8)
        w.bytes.append(contentsOf: #""}"#.utf8)
    }

    /// What an idempotent request leaves in the journal so the key survives a restart.
    struct IdempotencyMark: Sendable {
        let key: String
        let bodyHash: [UInt8]
        let firstVersion: Int
        let minimal: Bool
    }

    /// A refusal kept as an Idempotency-Key's first answer (`IdempotencyCache.Entry.refusal`). It
    /// changes no version, so it rides in the journal on the next action's record: if none
    /// becomes durable before a crash, the state after the restart is the one it was decided on,
    /// where the same request is refused the same way again.
    struct KeptRefusal: Sendable, Equatable {
        let key: String
        let bodyHash: [UInt8]
        /// The version the refusal was decided on.
        let version: Int
        let minimal: Bool
        let createdAt: Int64
        let status: Int
        /// The problem document (its only header is its Content-Type).
        let body: [UInt8]
    }

    /// A journal record: the action; on a request's last action its idempotency mark, then the
    /// refusals kept since the previous record (none on most records: nothing is written then).
    ///
    /// Binary, little-endian, so replay parses JSON only for a payload or meta that exists:
    /// `u8 format=1, u8 source, i64 at, u32 len + type, u32 len + payload JSON (0xFFFFFFFF: none),
    /// u32 len + meta JSON (same), u8 mark?, [u32 len + key, 32-byte body hash, i64 first version, u8 minimal]`,
    /// then, only when there are refusals, `u32 count` and each `u32 len + key, 32-byte body hash,
    /// i64 version, u8 minimal, i64 created at, u16 status, u32 len + problem JSON`.
    /// The journal frames and checksums it; these bytes are the server's alone.
    static func journalRecord(_ record: ActionRecord, mark: IdempotencyMark?, refusals: [KeptRefusal] = []) -> [UInt8] {
        let payload = record.payload?.encoded()
        let meta = record.meta?.encoded()
        // The exact size first, so the record is one allocation written in place: it is encoded
        // for every action a durable session takes (`bash scripts/instructions-per-request.sh post-never`).
        var size = 2 + 8 + 4 + record.type.utf8.count + 4 + (payload?.count ?? 0) + 4 + (meta?.count ?? 0) + 1
        if let mark { size += 4 + mark.key.utf8.count + 32 + 8 + 1 }
        if !refusals.isEmpty {
            size += 4
            for refusal in refusals { size += 4 + refusal.key.utf8.count + 32 + 8 + 1 + 8 + 2 + 4 + refusal.body.count }
        }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var w = RecordWriter(base: buffer.baseAddress!, capacity: size)  // capacity >= 24: never nil
            w.byte(journalFormat)
            w.byte(record.source == .client ? 0 : 1)
            w.integer(UInt64(bitPattern: record.at))
            w.blob(record.type)
            w.optionalBlob(payload)
            w.optionalBlob(meta)
            if let mark {
                w.byte(1)
                w.blob(mark.key)
                w.hash(mark.bodyHash)
                w.integer(UInt64(bitPattern: Int64(mark.firstVersion)))
                w.byte(mark.minimal ? 1 : 0)
            } else {
                w.byte(0)
            }
            if !refusals.isEmpty {
                w.integer(UInt32(refusals.count))
                for refusal in refusals {
                    w.blob(refusal.key)
                    w.hash(refusal.bodyHash)
                    w.integer(UInt64(bitPattern: Int64(refusal.version)))
                    w.byte(refusal.minimal ? 1 : 0)
                    w.integer(UInt64(bitPattern: refusal.createdAt))
                    w.integer(UInt16(clamping: refusal.status))
                    w.optionalBlob(refusal.body)
                }
            }
            initialized = w.offset
        }
    }

    /// Writes a journal record into storage of its exact size (`journalRecord` computes it); a
    /// write past `capacity` stops the process rather than write outside the buffer.
    private struct RecordWriter {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var offset = 0

        private mutating func claim(_ count: Int) -> UnsafeMutablePointer<UInt8> {
            precondition(offset + count <= capacity, "journal record larger than its computed size")
            defer { offset += count }
            return base + offset
        }

        mutating func byte(_ value: UInt8) { claim(1).pointee = value }

        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            UnsafeMutableRawPointer(claim(MemoryLayout<T>.size)).storeBytes(of: value.littleEndian, as: T.self)
        }

        mutating func bytes(_ source: UnsafeBufferPointer<UInt8>) {
            guard let from = source.baseAddress, source.count > 0 else { return }
            claim(source.count).update(from: from, count: source.count)
        }

        /// `u32 len` and the string's UTF-8.
        mutating func blob(_ string: String) {
            var string = string
            string.withUTF8 { utf8 in
                integer(UInt32(utf8.count))
                bytes(utf8)
            }
        }

        /// `u32 len` and the bytes, or the length `absent` alone for none.
        mutating func optionalBlob(_ value: [UInt8]?) {
            guard let value else { return integer(absent) }
            integer(UInt32(value.count))
            value.withUnsafeBufferPointer { bytes($0) }
        }

        /// A 32-byte body hash; zeros for one of another length.
        mutating func hash(_ value: [UInt8]) {
            guard value.count == 32 else { return claim(32).initialize(repeating: 0, count: 32) }
            value.withUnsafeBufferPointer { bytes($0) }
        }
    }

    struct DecodeError: Error, CustomStringConvertible { let description: String }

    /// Reads a journal record back.
    static func decodeJournalRecord(_ bytes: [UInt8]) throws -> (ActionRecord, IdempotencyMark?, [KeptRefusal]) {
        var reader = ByteReader(bytes: bytes)
        guard try reader.byte() == journalFormat else { throw DecodeError(description: "unknown record format") }
        let source: ActionSource = try reader.byte() == 0 ? .client : .effect
        let at = Int64(bitPattern: try reader.integer())
        let type = try reader.string()
        let payload = try reader.optionalJSON()
        let meta = try reader.optionalJSON()
        var mark: IdempotencyMark?
        if try reader.byte() == 1 {
            let key = try reader.string()
            let hash = try reader.take(32)
            let first = Int(Int64(bitPattern: try reader.integer()))
            mark = IdempotencyMark(key: key, bodyHash: hash, firstVersion: first, minimal: try reader.byte() == 1)
        }
        var refusals: [KeptRefusal] = []
        if !reader.isAtEnd {
            let count = Int(try reader.length())
            for _ in 0..<count {
                let key = try reader.string()
                let hash = try reader.take(32)
                let version = Int(Int64(bitPattern: try reader.integer()))
                let minimal = try reader.byte() == 1
                let createdAt = Int64(bitPattern: try reader.integer())
                let status = Int(try reader.status())
                refusals.append(KeptRefusal(key: key, bodyHash: hash, version: version, minimal: minimal, createdAt: createdAt,
                                            status: status, body: try reader.take(Int(try reader.length()))))
            }
        }
        return (ActionRecord(type: type, payload: payload, meta: meta, at: at, source: source), mark, refusals)
    }

    private static let journalFormat: UInt8 = 1
    private static let absent: UInt32 = .max

    /// A cursor over a record; every read checks the bounds, so a damaged record is an error, never a trap.
    private struct ByteReader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ count: Int) throws -> [UInt8] {
            try need(count)
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }

        private func need(_ count: Int) throws {
            guard count >= 0, offset + count <= bytes.count else { throw DecodeError(description: "record ends early") }
        }

        mutating func byte() throws -> UInt8 {
            try need(1)
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer() throws -> UInt64 { try littleEndian() }
        mutating func length() throws -> UInt32 { try littleEndian() }
        mutating func status() throws -> UInt16 { try littleEndian() }
        var isAtEnd: Bool { offset == bytes.count }

        private mutating func littleEndian<T: FixedWidthInteger>() throws -> T {
            let size = MemoryLayout<T>.size
            try need(size)
            var value: T = 0
            for i in 0..<size { value |= T(bytes[offset + i]) << (i * 8) }
            offset += size
            return value
        }

        /// A UTF-8 run read straight from the record, without an intermediate array.
        mutating func string() throws -> String {
            let count = Int(try length())
            try need(count)
            defer { offset += count }
            return String(decoding: bytes[offset..<(offset + count)], as: UTF8.self)
        }

        mutating func optionalJSON() throws -> JSONValue? {
            let count = try length()
            guard count != absent else { return nil }
            return try JSONReader.parse(try take(Int(count)), maxDepth: 10_000)
        }
    }
}
