func runEngineBenchServer(_ arguments: [String]) { print("engine bench: not yet") }
