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
        for field in fields where HTTPHeaders.equalsIgnoringCase(field.name, name) { return field.value }
        return nil
    }

    /// Every value of the field named `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { HTTPHeaders.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// How many field lines are named `name` (case-insensitive); counts without allocating.
    public func count(_ name: String) -> Int {
        var n = 0
        for field in fields where HTTPHeaders.equalsIgnoringCase(field.name, name) { n += 1 }
        return n
    }

    /// The values of a list-based field (RFC 9110 §5.3) as one line: every field line of that
    /// name joined with ", ", which is what they mean together; nil when there is none.
    public func combined(_ name: String) -> String? {
        var result: String?
        for field in fields where HTTPHeaders.equalsIgnoringCase(field.name, name) {
            result = result.map { $0 + ", " + field.value } ?? field.value
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
        var a = a, b = b
        return a.withUTF8 { ua in
            b.withUTF8 { ub in
                guard ua.count == ub.count else { return false }
                for i in 0..<ua.count where ua[i] != ub[i] {
                    if ASCII.lower(ua[i]) != ASCII.lower(ub[i]) { return false }
                }
                return true
            }
        }
    }
}
