import StoreCore

/// The `tasks` reducer. Every change goes through the `EntityTable`, never a copy of it.
public let tasksReducer = Reducer<TasksState, TasksAction> { state, action, _ throws(Rejection) in
    func unknown(_ id: Int) -> Rejection { .invalidPayload("payload.id: no task with id \(id)") }
    switch action {
    case .add(let title):
        let id = state.nextId
        guard id < Int.max else { throw .rejected("no task ids left") }
        state.tasks.insert(TaskItem(id: id, title: title, done: false))
        state.nextId = id + 1
    case .rename(let id, let title):
        guard state.tasks.update(id, \.title, member: "title", { $0 = title }) else { throw unknown(id) }
    case .toggleDone(let id):
        // Field-level: logs one Bool, never copies the task (its title stays untouched in memory).
        guard state.tasks.update(id, \.done, member: "done", { $0.toggle() }) else { throw unknown(id) }
    case .remove(let id):
        guard state.tasks.remove(id) != nil else { throw unknown(id) }
        // favoriteIds is small by nature (a user's picks), so a scan is fine here. Every
        // occurrence goes: a favorite left without its task would make the state unloadable.
        state.favoriteIds.removeAll { $0 == id }
    case .favorite(let id):
        guard state.tasks.contains(id) else { throw unknown(id) }
        if !state.favoriteIds.contains(id) { state.favoriteIds.append(id) }
    case .unfavorite(let id):
        guard state.tasks.contains(id) else { throw unknown(id) }
        if let i = state.favoriteIds.firstIndex(of: id) { state.favoriteIds.remove(at: i) }
    }
    return .none
}
