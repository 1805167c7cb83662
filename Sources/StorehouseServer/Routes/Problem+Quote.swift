/// What a problem document repeats of what the client sent: a short prefix, never the whole value,
/// so a megabyte action `type` is refused in a few hundred bytes rather than echoed back.
///
/// ```swift
/// Problem(422, "unknown-action", "unknown action type '\(Problem.quote(type))'")
/// ```
extension Problem {
    /// Characters of one client value a problem quotes.
    static let quotedCharacters = 64
    /// Characters of a whole detail: the net for values quoted through a description (a JSON
    /// error's path, a kind's refusal) rather than through `quote`.
    static let detailCharacters = 512

    /// At most `quotedCharacters` characters of `value`, with "…" when it is cut.
    static func quote(_ value: String) -> String {
        clipped(value, to: quotedCharacters)
    }

    static func clipped(_ value: String, to characters: Int) -> String {
        // Most values are short: counting UTF-8 bytes is O(1) for native strings.
        guard value.utf8.count > characters, value.count > characters else { return value }
        return String(value.prefix(characters)) + "…"
    }
}
