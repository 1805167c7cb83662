/// A value that can describe, as patch operations, how it differs from an older version of
/// itself. Scalars replace; arrays trim the common prefix and suffix and touch only the
/// middle; structs diff field by field (written by hand, a few lines per state).
public protocol PatchDiffable: JSONEncodable, Equatable {
    /// Appends operations that turn `old` (found at `path`) into `self`.
    func diff(from old: Self, at path: String, into patch: inout PatchWriter)

    /// True when `diff` is one `replace` of the whole value (a scalar's): `PatchWriter.field`
    /// then writes the operation without building the member's path. False unless a type says so.
    static var diffReplacesWhole: Bool { get }
}

extension PatchDiffable {
    @inlinable public func diff(from old: Self, at path: String, into patch: inout PatchWriter) {
        if self != old { patch.replace(path, self) }
    }

    @inlinable public static var diffReplacesWhole: Bool { false }
}

extension Int: PatchDiffable { @inlinable public static var diffReplacesWhole: Bool { true } }
extension Bool: PatchDiffable { @inlinable public static var diffReplacesWhole: Bool { true } }
extension String: PatchDiffable { @inlinable public static var diffReplacesWhole: Bool { true } }
extension Double: PatchDiffable { @inlinable public static var diffReplacesWhole: Bool { true } }
extension JSONValue: PatchDiffable { @inlinable public static var diffReplacesWhole: Bool { true } }
// Optional keeps the default `diff`: a change replaces the whole value, whatever it wraps.
extension Optional: PatchDiffable where Wrapped: PatchDiffable { @inlinable public static var diffReplacesWhole: Bool { true } }

extension Array: PatchDiffable where Element: PatchDiffable {
    /// O(length of the changed middle) after the prefix/suffix scans; an unchanged array that
    /// shares storage with `old` is recognized in O(1) by `==`.
    @inlinable public func diff(from old: [Element], at path: String, into patch: inout PatchWriter) {
        if self == old { return }
        var prefix = 0
        let shorter = Swift.min(count, old.count)
        while prefix < shorter && self[prefix] == old[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix && self[count - 1 - suffix] == old[old.count - 1 - suffix] { suffix += 1 }
        let oldMiddle = old.count - prefix - suffix
        let newMiddle = count - prefix - suffix
        let common = Swift.min(oldMiddle, newMiddle)
        for i in 0..<common {
            self[prefix + i].diff(from: old[prefix + i], at: path + "/\(prefix + i)", into: &patch)
        }
        // Each removal shifts the rest left, so the same index is removed repeatedly.
        for _ in common..<Swift.max(common, oldMiddle) { patch.remove(path + "/\(prefix + common)") }
        for i in common..<Swift.max(common, newMiddle) { patch.add(path + "/\(prefix + i)", self[prefix + i]) }
    }
}
