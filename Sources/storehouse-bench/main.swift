import Foundation

// `storehouse-bench <suite>`: each suite lives in its own file (CoreBench.swift, EngineBench.swift,
// SSEFanoutBench.swift with its stream parser in SSEFanoutStream.swift, LoopbackFloorBench.swift,
// BigStoreBench.swift with BenchServer.swift).
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
case "sse-fanout":
    runSSEFanoutBench(Array(arguments.dropFirst()))
case "loopback-floor":
    runLoopbackFloorBench(Array(arguments.dropFirst()))
case "bigstore":
    runBigStoreBench(Array(arguments.dropFirst()))
default:
    print("usage: storehouse-bench core | journal [DIR] | recovery [DIR] [SESSIONS] [ACTIONS] | http-server [--port N]\n       | sse-fanout BASE_URL [-n SUBSCRIBERS] [-m ACTIONS] [-r RATE] [--threads K]\n       | loopback-floor [-n CONNECTIONS] | bigstore [--server PATH] [--tasks N] [--batch N] [--in-memory] [--decode] [--recovery-only [--baseline PATH] [--runs N]]")
    exit(2)
}
