import StoreCore

extension TaskItem: JSONStreamDecodable {
    /// `init(json:path:)` straight from the bytes: members matched by their bytes, no dictionary.
    public init(reading r: inout JSONStreamReader) throws(StateDecodingError) {
        var id: Int?, title: String?, done: Bool?
        try r.beginObject()
        while let key = try r.nextKey() {
            if key == "id" {
                do { id = try r.readInt() } catch { throw error.under("/id") }
            } else if key == "title" {
                do { title = try r.readString() } catch { throw error.under("/title") }
            } else if key == "done" {
                do { done = try r.readBool() } catch { throw error.under("/done") }
            } else {
                try r.skipValue()
            }
        }
        guard let id else { throw StateDecodingError(path: "/id", message: "missing") }
        guard let title else { throw StateDecodingError(path: "/title", message: "missing") }
        guard let done else { throw StateDecodingError(path: "/done", message: "missing") }
        self.init(id: id, title: title, done: done)
    }
}
