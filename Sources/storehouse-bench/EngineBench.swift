import Foundation
import HTTPEngine

/// `storehouse-bench http-server [--port N] [--threads N] [--single-acceptor] [--no-yield]`: the engine alone, for wrk.
/// GET /json answers a small fixed JSON document; POST /echo answers the request body.
func runEngineBenchServer(_ arguments: [String]) {
    var configuration = HTTPServerConfiguration()
    configuration.port = 8080
    var i = 0
    while i < arguments.count {
        let value = i + 1 < arguments.count ? arguments[i + 1] : ""
        switch arguments[i] {
        case "--port": configuration.port = Int(value) ?? configuration.port; i += 1
        case "--threads": configuration.ioThreads = Int(value) ?? configuration.ioThreads; i += 1
        case "--host": configuration.host = value; i += 1
        case "--max-connections": configuration.maxConnections = Int(value) ?? configuration.maxConnections; i += 1
        case "--single-acceptor": configuration.reusePortListeners = false; i += 0
        case "--no-yield": configuration.yieldAfterBusy = nil; i += 0
        default: break
        }
        i += 1
    }
    let server = HTTPServer(configuration: configuration, handler: EngineBenchHandler())
    do {
        try server.start()
    } catch {
        FileHandle.standardError.write(Data("http-server: \(error)\n".utf8))
        exit(1)
    }
    server.shutdownOnTerminationSignals()
    FileHandle.standardOutput.write(Data("http-server listening on \(configuration.host):\(server.port)\n".utf8))
    server.waitUntilStopped()
    exit(0)
}

struct EngineBenchHandler: HTTPHandler {
    static let json: [UInt8] = Array(#"{"count":42,"favoritePrimes":[2,3,5],"activityFeed":[],"nthPrime":null,"isNthPrimeRequestInFlight":false}"#.utf8)
    static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json"]
    static let octetHeaders: HTTPHeaders = ["Content-Type": "application/octet-stream"]

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        switch (request.method, request.path) {
        case ("GET", "/json"), ("HEAD", "/json"):
            responder.respond(HTTPResponse(status: 200, headers: Self.jsonHeaders, body: Self.json))
        case ("POST", "/echo"):
            responder.respond(HTTPResponse(status: 200, headers: request.headers["Content-Type"].map { ["Content-Type": $0] } ?? Self.octetHeaders,
                                           body: request.body))
        default:
            responder.respond(HTTPResponse(status: 404, headers: ["Content-Type": "application/problem+json"],
                                           body: Array(#"{"type":"/problems/not-found","title":"Not Found","status":404}"#.utf8)))
        }
    }
}
