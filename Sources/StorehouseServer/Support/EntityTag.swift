/// An entity tag of `If-Match` / `If-None-Match` (RFC 9110 §8.8.3). A state's tag is `"<version>"`.
struct EntityTag: Sendable, Equatable {
    let opaque: String
    let weak: Bool
    let any: Bool

    /// Parses a comma-separated field value; nil when it is not a list of entity tags.
    static func parseList(_ field: String) -> [EntityTag]? {
        var tags: [EntityTag] = []
        for raw in field.split(separator: ",") {
            let item = raw.trimmingSpaces()
            if item == "*" { tags.append(EntityTag(opaque: "", weak: false, any: true)); continue }
            var text = Substring(item)
            var weak = false
            if text.hasPrefix("W/") { weak = true; text = text.dropFirst(2) }
            guard text.count >= 2, text.first == "\"", text.last == "\"" else { return nil }
            tags.append(EntityTag(opaque: String(text.dropFirst().dropLast()), weak: weak, any: false))
        }
        return tags.isEmpty ? nil : tags
    }

    /// `If-Match` uses the strong comparison (RFC 9110 §13.1.1): a weak tag never matches.
    static func ifMatch(_ tags: [EntityTag], version: Int) -> Bool {
        let current = String(version)
        return tags.contains { $0.any || (!$0.weak && $0.opaque == current) }
    }

    /// `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2): true when the client's copy is current.
    static func ifNoneMatch(_ tags: [EntityTag], version: Int) -> Bool {
        let current = String(version)
        return tags.contains { $0.any || $0.opaque == current }
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
