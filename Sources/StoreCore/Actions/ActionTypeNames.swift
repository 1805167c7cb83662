#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A kind's action types, found by their bytes: the `"type"` a client sends is matched against
/// them as it stands in the request body, and the record gets the kind's own `String` for it
/// (a literal: no allocation, no reference counting), not a new one per request. A class, so
/// handing it to each request is one retain.
///
///     let names = ActionTypeNames(["counter/incrTapped", "counter/decrTapped"])
///     let record = ActionRecord.read(fsa: Array(#"{"type":"counter/incrTapped"}"#.utf8), names: names, at: 0, source: .client)
///     // record?.type is the first of `names`, shared
public final class ActionTypeNames: Sendable {
    let names: [String]
    /// Every name's UTF-8, back to back; name `i` ends at `ends[i]`.
    let utf8: [UInt8]
    let ends: [Int]

    public init(_ names: [String]) {
        self.names = names
        var utf8: [UInt8] = [], ends: [Int] = []
        for name in names {
            utf8 += name.utf8
            ends.append(utf8.count)
        }
        self.utf8 = utf8
        self.ends = ends
    }

    /// No names: every type is read into a new `String`.
    public static let none = ActionTypeNames([])

    /// The name whose UTF-8 is `raw`: one of these names when it is one, else a new `String`.
    public func name(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        utf8.withUnsafeBufferPointer { all in
            var start = 0
            for i in 0..<ends.count {
                let end = ends[i]
                if end - start == raw.count {
                    // Both non-empty here, or both empty (no base address needed to compare).
                    guard let mine = all.baseAddress, let theirs = raw.baseAddress else { return names[i] }
                    if memcmp(mine + start, theirs, raw.count) == 0 { return names[i] }
                }
                start = end
            }
            return String(decoding: raw, as: UTF8.self)
        }
    }

    /// The name `key` spells: one of these names when it is one, else a new `String`.
    public func name(_ key: JSONKey) -> String {
        key.text ?? name(key.raw)
    }
}
