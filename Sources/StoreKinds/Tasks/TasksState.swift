import StoreCore

/// `tasks`: `{"tasks": {"byId": {...}, "allIds": [...]}, "favoriteIds": [...], "nextId": 1}`.
///
/// The tasks live in an `EntityTable`, so updating one costs the same at ten tasks or a
/// million: its checkpoint is a log mark plus the two small parts.
public struct TasksState: StoreState, Equatable, Encodable {
    public var tasks: EntityTable<TaskItem>
    public var favoriteIds: [Int]
    public var nextId: Int

    public init(tasks: EntityTable<TaskItem> = EntityTable(), favoriteIds: [Int] = [], nextId: Int = 1) {
        self.tasks = tasks
        self.favoriteIds = favoriteIds
        self.nextId = nextId
    }

    public static var initial: TasksState { TasksState() }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("tasks"); tasks.writeJSON(to: &w)
        w.key("favoriteIds"); favoriteIds.writeJSON(to: &w)
        w.key("nextId"); w.write(nextId)
        w.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        tasks = try json.decodeMember("tasks", at: path)
        favoriteIds = try json.decodeMember("favoriteIds", at: path)
        nextId = try json.decodeMember("nextId", at: path)
        try validate(at: path)
    }

    /// What `init(json:path:)` and `init(reading:)` check once the members are read.
    mutating func validate(at path: String) throws(StateDecodingError) {
        for (i, id) in favoriteIds.enumerated() where !tasks.contains(id) {
            throw StateDecodingError(path: path + "/favoriteIds/\(i)", message: "no task has this id")
        }
        // Favorites are a set kept in order, as the reducer keeps them. A duplicate is dropped
        // here rather than refused: journals written before this rule may hold one, and their
        // sessions must still recover; kept, it would outlive its task's `remove`.
        var seen = Set<Int>()
        favoriteIds = favoriteIds.filter { seen.insert($0).inserted }
        // Ids come from nextId, which starts at 1: a restored state must not make add() hand out
        // a negative id, whose key ("-5") the state's schema does not allow.
        guard nextId >= 1 else { throw StateDecodingError(path: path + "/nextId", message: "must be at least 1") }
        let ids = tasks.ids
        if let minId = ids.min(), minId < 0 {
            throw StateDecodingError(path: path + "/tasks/byId/\(minId)", message: "a task id is never negative")
        }
        if let maxId = ids.max(), nextId <= maxId {
            throw StateDecodingError(path: path + "/nextId", message: "must be greater than every task id")
        }
    }

    /// `/tasks/...` is answered by the table (one entity, not a million); the rest is small.
    public func encodedValue(at tokens: ArraySlice<String>) -> [UInt8]? {
        switch tokens.first {
        case nil: return jsonBytes()
        case "tasks"?: return tasks.encodedValue(at: tokens.dropFirst())
        case "favoriteIds"?: return JSONPointer.encodedValue(of: favoriteIds, at: tokens.dropFirst())
        case "nextId"?: return tokens.count == 1 ? nextId.jsonBytes() : nil
        default: return nil
        }
    }

    public struct Checkpoint {
        var tasksMark: Int
        var favoriteIds: [Int]
        var nextId: Int
    }

    public func checkpoint() -> Checkpoint {
        Checkpoint(tasksMark: tasks.mark, favoriteIds: favoriteIds, nextId: nextId)
    }

    public func writePatch(since c: Checkpoint, into patch: inout PatchWriter) {
        tasks.writePatch(since: c.tasksMark, at: "/tasks", into: &patch)
        patch.field(favoriteIds, c.favoriteIds, "", "/favoriteIds")
        patch.field(nextId, c.nextId, "", "/nextId")
    }

    public mutating func rollback(to c: Checkpoint) {
        tasks.rollback(to: c.tasksMark)
        favoriteIds = c.favoriteIds
        nextId = c.nextId
    }

    public mutating func commit() { tasks.commit() }

    enum CodingKeys: String, CodingKey { case tasks, favoriteIds, nextId }
}
