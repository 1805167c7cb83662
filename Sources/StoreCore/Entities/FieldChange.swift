/// The old and new value of one field, logged by `EntityTable.update(_:_:member:_:)`: enough to undo
/// the change and to write its patch without copying (and so touching) the whole entity.
/// Immutable after init, hence `@unchecked Sendable` (the key path type is not marked Sendable).
@usableFromInline
class AnyFieldChange<E>: @unchecked Sendable {
    @usableFromInline init() {}
    @usableFromInline func undo(_ entity: inout E) {}
    @usableFromInline func write(byId: String, key: String, into patch: inout PatchWriter) {}
}

@usableFromInline
final class FieldChange<E, V: PatchDiffable>: AnyFieldChange<E>, @unchecked Sendable {
    @usableFromInline let field: WritableKeyPath<E, V>
    @usableFromInline let old: V
    @usableFromInline let new: V
    /// "/member", escaped once.
    @usableFromInline let token: String

    @inlinable init(field: WritableKeyPath<E, V>, old: V, new: V, token: String) {
        self.field = field
        self.old = old
        self.new = new
        self.token = token
    }

    @usableFromInline override func undo(_ entity: inout E) { entity[keyPath: field] = old }

    /// The field's own change (old to new) at `byId` + `key` + the field's token, so writing a
    /// patch never reads the entity. The path is built in one allocation: joined two at a time,
    /// a big table's longer ids pushed the first join past the 15 bytes a String holds inline,
    /// one malloc more per action than at ten entities.
    @usableFromInline override func write(byId: String, key: String, into patch: inout PatchWriter) {
        guard new != old else { return }
        var path = ""
        path.reserveCapacity(byId.utf8.count + key.utf8.count + token.utf8.count)
        path += byId
        path += key
        path += token
        new.diff(from: old, at: path, into: &patch)
    }
}
