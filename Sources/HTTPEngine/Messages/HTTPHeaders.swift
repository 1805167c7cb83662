/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1).
///
/// ```swift
/// var headers = HTTPHeaders()
/// headers.add("Content-Type", "application/json")
/// headers["content-type"]   // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    @usableFromInline var fields: [Field]

    public init() { fields = [] }

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    init(fields: [Field]) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of the field named `name` (case-insensitive), or nil.
    public subscript(_ name: String) -> String? {
        // By index, as below: `for field in fields` copies each (name, value) pair, two retains
        // and two releases per field passed over, and the router looks up several per request.
        for i in fields.indices where HTTPHeaders.equalsIgnoringCase(fields[i].name, name) { return fields[i].value }
        return nil
    }

    /// Every value of the field named `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.indices.filter { HTTPHeaders.equalsIgnoringCase(fields[$0].name, name) }.map { fields[$0].value }
    }

    /// How many field lines are named `name` (case-insensitive); counts without allocating.
    public func count(_ name: String) -> Int {
        var n = 0
        for i in fields.indices where HTTPHeaders.equalsIgnoringCase(fields[i].name, name) { n += 1 }
        return n
    }

    /// The values of a list-based field (RFC 9110 §5.3) as one line: every field line of that
    /// name joined with ", ", which is what they mean together; nil when there is none.
    public func combined(_ name: String) -> String? {
        var result: String?
        for i in fields.indices where HTTPHeaders.equalsIgnoringCase(fields[i].name, name) {
            result = result.map { $0 + ", " + fields[i].value } ?? fields[i].value
        }
        return result
    }

    /// Appends a field; earlier fields of the same name stay.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Makes room for `count` fields, so a response built field by field allocates once.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeaders.equalsIgnoringCase($0.name, name) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison; field names are tokens, so ASCII is all that matters.
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        // Most lookups miss on the length alone (O(1) for native strings); only then look at bytes.
        guard a.utf8.count == b.utf8.count else { return false }
        // Read in place: `withUTF8` needs a mutable copy of each string (a retain and a release).
        let contiguous = a.utf8.withContiguousStorageIfAvailable { ua in
            b.utf8.withContiguousStorageIfAvailable { ub in
                for i in 0..<ua.count where ua[i] != ub[i] {
                    if ASCII.lower(ua[i]) != ASCII.lower(ub[i]) { return false }
                }
                return true
            }
        }
        if let equal = contiguous ?? nil { return equal }
        // Only a string without contiguous UTF-8 (none is made on Linux) gets here.
        return zip(a.utf8, b.utf8).allSatisfy { $0 == $1 || ASCII.lower($0) == ASCII.lower($1) }
    }
}
