import Foundation

// `storehouse-bench <suite>`: each suite lives in its own file (CoreBench.swift, EngineBench.swift).
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "core":
    runCoreBench(Array(arguments.dropFirst()))
case "journal":
    runJournalBench(Array(arguments.dropFirst()))
case "recovery":
    runRecoveryBench(Array(arguments.dropFirst()))
case "http-server":
    runEngineBenchServer(Array(arguments.dropFirst()))
default:
    print("usage: storehouse-bench core | journal [DIR] | recovery [DIR] [SESSIONS] [ACTIONS] | http-server [--port N]")
    exit(2)
}
