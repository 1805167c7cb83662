/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1).
///
/// ```swift
/// var headers = HTTPHeaders()
/// headers.add("Content-Type", "application/json")
/// headers["content-type"]   // "application/json"
/// ```
///
/// The fields are kept as bytes, back to back in one array, and a value becomes a `String`
/// only when someone asks for one: a parsed request's header block is one allocation, and a
/// response's fields go to the wire as two copies each. A `(String, String)` per field would make
/// building and validating strings about a third of parsing a request
/// (`scripts/instructions-per-request.sh` counts it).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    /// Per field: the name's length and the value's (`UInt32` each, native byte order: these bytes
    /// never leave the process), then the name's bytes and the value's. Only `storage[..<used]`
    /// holds fields; the rest is room (never read), so a field is copied in with `memcpy` (an
    /// `append(contentsOf:)` per part cost ~100 instructions, 300 a field).
    @usableFromInline var storage: [UInt8]
    @usableFromInline var used: Int
    /// Where the fields start in `storage`: a parsed request keeps its target's bytes before them
    /// (`HTTPRequest` reads them from there), so its head is one allocation, reused by the parser.
    @usableFromInline var start: Int
    /// How many fields there are.
    @inlinable public var count: Int { Int(truncatingIfNeeded: countAndNames & 0xFFFF_FFFF) }
    /// How many fields there are (the low 32 bits), and `nameBits` (the high 32). One stored
    /// word, not two: an `HTTPResponse` of more than seven scalar parts is copied through the
    /// runtime where generic code holds one (`SessionMachine<HTTPResponse, …>`), which cost ~430
    /// instructions per POST (`scripts/instructions-per-request.sh`).
    @usableFromInline var countAndNames: UInt64

    /// A 32-bit Bloom filter of the names present: bit `nameBit` of every field's name is set.
    /// Most lookups ask for a field the message does not have (a request's `Origin`, `If-Match`,
    /// `Prefer`…), and a clear bit answers those without a pass over the fields. A set bit
    /// proves nothing (names may share one), so such a lookup scans the fields as ever.
    @inlinable var nameBits: UInt32 { UInt32(truncatingIfNeeded: countAndNames >> 32) }

    /// Counts a field named `count` bytes ending in `last`.
    @inlinable @inline(__always)
    mutating func noteField(nameCount count: Int, last: UInt8) {
        // A field takes at least 8 bytes of `storage`: the count never reaches 2^32.
        countAndNames = (countAndNames | UInt64(Self.nameBit(count: count, last: last)) << 32) &+ 1
    }

    @usableFromInline static let lengthBytes = 8

    public init() {
        storage = []
        used = 0
        start = 0
        countAndNames = 0
    }

    public init(_ fields: [(String, String)]) {
        self.init()
        for (name, value) in fields { add(name, value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var isEmpty: Bool { count == 0 }

    /// The first value of the field named `name` (case-insensitive), or nil.
    @inlinable
    public subscript(_ name: String) -> String? {
        withValue(name) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the bytes of the first value of the field named `name`
    /// (case-insensitive), without building a string; nil when there is no such field.
    ///
    /// ```swift
    /// let isJSON = request.headers.withValue("Content-Type") { $0.starts(with: "application/json".utf8) }
    /// ```
    @inlinable
    public func withValue<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        var found: UnsafeBufferPointer<UInt8>?
        var name = name
        return try name.withUTF8 { wanted in
            guard mayContain(wanted) else { return nil }
            return try withFieldBytes { bytes in
                Self.forEach(in: bytes) { fieldName, value in
                    guard Self.equalsIgnoringCase(fieldName, wanted) else { return true }
                    found = value
                    return false
                }
                return try found.map(body)
            }
        }
    }

    /// Whether a field named `name` (case-insensitive) has exactly the value `value`.
    @inlinable
    public func contains(_ name: String, value: String) -> Bool {
        var found = false
        var name = name, value = value
        name.withUTF8 { wanted in
            guard mayContain(wanted) else { return }
            value.withUTF8 { wantedValue in
                forEachField { fieldName, fieldValue in
                    found = Self.equalsIgnoringCase(fieldName, wanted) && fieldValue.elementsEqual(wantedValue)
                    return !found
                }
            }
        }
        return found
    }

    /// Every value of the field named `name`, in order.
    @inlinable
    public func values(_ name: String) -> [String] {
        var values: [String] = []
        forEach(named: name) { values.append(String(decoding: $0, as: UTF8.self)) }
        return values
    }

    /// How many field lines are named `name` (case-insensitive); counts without allocating.
    @inlinable
    public func count(_ name: String) -> Int {
        var n = 0
        forEach(named: name) { _ in n += 1 }
        return n
    }

    /// The values of a list-based field (RFC 9110 §5.3) as one line: every field line of that
    /// name joined with ", ", which is what they mean together; nil when there is none.
    @inlinable
    public func combined(_ name: String) -> String? {
        var joined: [UInt8] = []
        var any = false
        forEach(named: name) { value in
            if any { joined.append(contentsOf: ", ".utf8) }
            joined.append(contentsOf: value)
            any = true
        }
        return any ? String(decoding: joined, as: UTF8.self) : nil
    }

    /// Appends a field; earlier fields of the same name stay.
    @inlinable
    public mutating func add(_ name: String, _ value: String) {
        var name = name, value = value
        name.withUTF8 { n in value.withUTF8 { v in append(name: n, value: v) } }
    }

    /// Makes room for `count` more fields of a usual size, so headers built field by field
    /// allocate once.
    public mutating func reserveCapacity(_ count: Int) {
        reserveBytes(used + count * 48)
    }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        guard self.count(name) > 0 else { return }
        var kept = HTTPHeaders()
        var name = name
        name.withUTF8 { wanted in
            forEachField { fieldName, value in
                if !Self.equalsIgnoringCase(fieldName, wanted) { kept.append(name: fieldName, value: value) }
                return true
            }
        }
        self = kept
    }

    public func makeIterator() -> Iterator { Iterator(headers: self) }

    /// The fields in order, each as a pair of strings.
    public struct Iterator: IteratorProtocol {
        let headers: HTTPHeaders
        var offset = 0

        public mutating func next() -> Field? {
            // `offset` counts from the first field.
            guard offset < headers.used - headers.start else { return nil }
            var field: Field?
            headers.withFieldBytes { bytes in
                let (name, value, next) = HTTPHeaders.field(in: bytes, at: offset)
                field = (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
                offset = next
            }
            return field
        }
    }

    // MARK: bytes

    /// Appends a field from its bytes (the parser's way in, and a value written on the stack:
    /// no string is built). The bytes are copied as they are; `ResponseEncoder` drops a field
    /// that is not a token and a field value when it writes it.
    ///
    /// ```swift
    /// "ETag".utf8.withContiguousStorageIfAvailable { name in headers.append(name: name, value: digits) }
    /// ```
    @inlinable
    public mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        // The lengths are stored as UInt32: a longer field is a programming error (a request's are
        // bounded by the parser's limits), and storing it would make every read run past the field.
        precondition(name.count <= UInt32.max && value.count <= UInt32.max, "a header field of 4 GiB or more")
        let start = used
        let end = start + Self.lengthBytes + name.count + value.count
        if storage.count < end { reserveBytes(Swift.max(end, storage.count * 2, 64)) }
        storage.withUnsafeMutableBufferPointer { bytes in
            let field = bytes.baseAddress.unsafelyUnwrapped + start
            // SE-0349: `storeBytes` needs no alignment.
            UnsafeMutableRawPointer(field).storeBytes(of: UInt32(truncatingIfNeeded: name.count), as: UInt32.self)
            UnsafeMutableRawPointer(field).storeBytes(of: UInt32(truncatingIfNeeded: value.count), toByteOffset: 4, as: UInt32.self)
            if let n = name.baseAddress { (field + Self.lengthBytes).update(from: n, count: name.count) }
            if let v = value.baseAddress { (field + Self.lengthBytes + name.count).update(from: v, count: value.count) }
        }
        used = end
        // A field with an empty name is counted with no name bit (no lookup names it).
        if let last = name.last { noteField(nameCount: name.count, last: last) } else { countAndNames &+= 1 }
    }

    /// The parser's append, of a field it checked (its lengths are bounded by the parser's
    /// limits): `append(name:value:)` without its checks, inlined into the parser's loop.
    @inline(__always)
    mutating func appendField(name: UnsafePointer<UInt8>, nameCount: Int, value: UnsafePointer<UInt8>, valueCount: Int) {
        let start = used
        let end = start + Self.lengthBytes + nameCount + valueCount
        if storage.count < end { reserveBytes(Swift.max(end, storage.count * 2, 64)) }
        storage.withUnsafeMutableBufferPointer { bytes in
            let field = bytes.baseAddress.unsafelyUnwrapped + start
            UnsafeMutableRawPointer(field).storeBytes(of: UInt32(truncatingIfNeeded: nameCount), as: UInt32.self)
            UnsafeMutableRawPointer(field).storeBytes(of: UInt32(truncatingIfNeeded: valueCount), toByteOffset: 4, as: UInt32.self)
            (field + Self.lengthBytes).update(from: name, count: nameCount)
            (field + Self.lengthBytes + nameCount).update(from: value, count: valueCount)
        }
        used = end
        // The parser's names are never empty (a token before the colon).
        noteField(nameCount: nameCount, last: name[nameCount - 1])
    }

    /// Removes every field; with `keepingCapacity` the bytes stay as room for the next fields.
    mutating func removeAll(keepingCapacity: Bool) {
        used = 0
        start = 0
        countAndNames = 0
        if !keepingCapacity { storage = [] }
    }

    /// Empties the headers and writes `prefix` before where the fields will go (the parser's
    /// request-target); `removeAll` and a rebuild (`remove`) drop it.
    mutating func removeAll(keepingCapacity: Bool, prefix: UnsafeBufferPointer<UInt8>) {
        removeAll(keepingCapacity: keepingCapacity)
        // Room for the prefix and a usual header block at once.
        reserveBytes(prefix.count + 256)
        if prefix.count > 0 {
            storage.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress.unsafelyUnwrapped.update(from: prefix.baseAddress.unsafelyUnwrapped, count: prefix.count)
            }
        }
        used = prefix.count
        start = prefix.count
    }

    /// Bytes held for fields and the room after them (tests).
    var reservedBytes: Int { storage.count }

    /// Makes room for `bytes` bytes of fields in all (with their lengths), so appends copy in place.
    @usableFromInline
    mutating func reserveBytes(_ bytes: Int) {
        guard storage.count < bytes else { return }
        // The fields copied in and the room left as it comes: only `storage[..<used]` is ever
        // read, and filling the room (element by element, or even with memset) cost more than
        // the copy.
        let used = self.used
        storage = storage.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: bytes) { target, count in
                if used > 0 { target.baseAddress.unsafelyUnwrapped.initialize(from: source.baseAddress.unsafelyUnwrapped, count: used) }
                count = bytes
            }
        }
    }

    /// Calls `body` with each field's name and value bytes, in order, while it returns true.
    @inlinable
    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool) {
        withFieldBytes { Self.forEach(in: $0, body) }
    }

    /// The bytes that hold fields (not the room after them).
    @inlinable @inline(__always)
    func withFieldBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<used])) }
    }

    /// Calls `body` with the value bytes of every field named `name`, in order.
    @inlinable
    func forEach(named name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var name = name
        name.withUTF8 { wanted in
            guard mayContain(wanted) else { return }
            forEachField { fieldName, value in
                if Self.equalsIgnoringCase(fieldName, wanted) { body(value) }
                return true
            }
        }
    }

    @inlinable @inline(__always)
    static func forEach(in bytes: UnsafeBufferPointer<UInt8>,
                                _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        var offset = 0
        while offset < bytes.count {
            let (name, value, next) = field(in: bytes, at: offset)
            if !body(name, value) { return }
            offset = next
        }
    }

    /// The field stored at `offset`: its name, its value, and where the next one starts.
    @inlinable @inline(__always)
    static func field(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int)
        -> (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, next: Int) {
        // `storage` is only ever written by `append`, so a length read here is always followed by its bytes.
        let base = bytes.baseAddress.unsafelyUnwrapped + offset
        let raw = UnsafeRawPointer(base)
        let nameCount = Int(raw.loadUnaligned(as: UInt32.self))
        let valueCount = Int(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let name = UnsafeBufferPointer(start: base + lengthBytes, count: nameCount)
        let value = UnsafeBufferPointer(start: base + lengthBytes + nameCount, count: valueCount)
        return (name, value, offset + lengthBytes + nameCount + valueCount)
    }

    /// `nameBits`' bit for a name of `count` bytes ending in `last`, from the count and that byte
    /// with bit 5 set: names equal but for the case of letters get the same bit (setting bit 5
    /// lowercases a letter), whatever else shares it. The factor 30 gives the fields requests
    /// commonly send (Host, User-Agent, Accept*, Connection, Content-*, Authorization, Cookie…)
    /// bits apart from those the server looks up and most often finds absent (Origin, If-Match,
    /// If-None-Match, Idempotency-Key, Prefer, Last-Event-ID).
    @inlinable @inline(__always)
    static func nameBit(count: Int, last: UInt8) -> UInt32 {
        1 &<< ((UInt32(truncatingIfNeeded: count) &* 30 &+ UInt32(last | 0x20)) & 31)
    }

    /// False when no field is named `name` (case-insensitive); true when one may be.
    @inlinable @inline(__always)
    func mayContain(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let last = name.last else { return true }
        return nameBits & Self.nameBit(count: name.count, last: last) != 0
    }

    /// ASCII case-insensitive comparison; field names are tokens, so ASCII is all that matters.
    @inlinable @inline(__always)
    static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        // Most lookups miss on the length alone; only then look at bytes.
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a[i] != b[i] {
            if ASCII.lower(a[i]) != ASCII.lower(b[i]) { return false }
        }
        return true
    }

    /// The same for a name's bytes and an ASCII literal.
    @inline(__always)
    static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        equalsIgnoringCase(a, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
