func runCoreBench(_ arguments: [String]) { print("core bench: not yet") }
