import StoreCore

/// One task of the `tasks` kind: `{"id": 1, "title": "...", "done": false}`.
public struct TaskItem: Entity, Encodable {
    public var id: Int
    public var title: String
    public var done: Bool

    public init(id: Int, title: String, done: Bool = false) {
        self.id = id
        self.title = title
        self.done = done
    }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.write(id)
        w.key("title"); w.write(title)
        w.key("done"); w.write(done)
        w.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        id = try json.decodeMember("id", at: path)
        title = try json.decodeMember("title", at: path)
        done = try json.decodeMember("done", at: path)
    }

    public func diff(from old: TaskItem, at path: String, into patch: inout PatchWriter) {
        patch.field(id, old.id, path, "/id")
        patch.field(title, old.title, path, "/title")
        patch.field(done, old.done, path, "/done")
    }
}
