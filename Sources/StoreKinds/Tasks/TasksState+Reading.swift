import StoreCore

extension TasksState: JSONStreamDecodable {
    /// `init(json:path:)` straight from the bytes: a snapshot of a million tasks is read without
    /// a `JSONValue` of them (`EntityTable.init(reading:)`). Members in any order; others skipped.
    public init(reading r: inout JSONStreamReader) throws(StateDecodingError) {
        var tasks: EntityTable<TaskItem>?, favoriteIds: [Int]?, nextId: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            do {
                if key == "tasks" {
                    tasks = try EntityTable(reading: &r)
                } else if key == "favoriteIds" {
                    favoriteIds = try [Int](reading: &r)
                } else if key == "nextId" {
                    nextId = try r.readInt()
                } else {
                    try r.skipValue()
                }
            } catch {
                throw error.under("/" + JSONPointer.escape(key.string))
            }
        }
        guard let tasks else { throw StateDecodingError(path: "/tasks", message: "missing") }
        guard let favoriteIds else { throw StateDecodingError(path: "/favoriteIds", message: "missing") }
        guard let nextId else { throw StateDecodingError(path: "/nextId", message: "missing") }
        self.init(tasks: tasks, favoriteIds: favoriteIds, nextId: nextId)
        try validate(at: "")
    }
}
