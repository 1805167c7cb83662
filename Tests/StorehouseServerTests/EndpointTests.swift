import XCTest
@testable import StorehouseServer

/// The route table: each (route, method) once, and `Allow` read off it.
final class EndpointTests: XCTestCase {
    func testEveryServedRouteAndMethodFindsItsEndpoint() {
        XCTAssertEqual(Endpoint(route: .actions, method: "POST"), .session(.postActions))
        XCTAssertEqual(Endpoint(route: .actions, method: "GET"), .session(.readLog))
        XCTAssertEqual(Endpoint(route: .session, method: "DELETE"), .session(.delete))
        XCTAssertEqual(Endpoint(route: .sessions, method: "POST"), .createSession)
        XCTAssertEqual(Endpoint(route: .problems, method: "GET"), .problem)
        XCTAssertEqual(Endpoint(route: .sessions, method: "GET"), .listSessions)
        XCTAssertNil(Endpoint(route: .sessions, method: "DELETE"))
        XCTAssertNil(Endpoint(route: .state, method: "POST"))
        XCTAssertNil(Endpoint(route: .other, method: "GET"))
    }

    /// The lookup by route and method finds exactly the table's endpoints, each at its own
    /// route and method, and nothing for a method no endpoint has.
    func testTheLookupFindsEveryEndpointOfTheTableAndNothingElse() {
        var found: [Endpoint] = []
        for route in Metrics.Route.allCases {
            for method in ["GET", "POST", "DELETE", "PUT", "HEAD", "OPTIONS", "get"] {
                guard let endpoint = Endpoint(route: route, method: method) else { continue }
                XCTAssertEqual(endpoint.route, route)
                XCTAssertEqual(endpoint.method, method)
                found.append(endpoint)
            }
        }
        XCTAssertEqual(found.count, 8 + SessionEndpoint.allCases.count)
    }

    /// The router's lookup by the method's index (`Exchange.methodIndex`) finds what the lookup
    /// by name finds, HEAD as GET, and nothing for a method outside `Metrics.methods`.
    func testTheLookupByMethodIndexAgreesWithTheLookupByName() {
        for route in Metrics.Route.allCases {
            for method in ["GET", "HEAD", "POST", "DELETE", "PUT", "OPTIONS", "get"] {
                XCTAssertEqual(Endpoint(route: route, methodIndex: Metrics.methodIndex(method)),
                               Endpoint(route: route, method: method == "HEAD" ? "GET" : method), "\(route) \(method)")
            }
        }
        XCTAssertEqual(Endpoint(route: .state, methodIndex: Metrics.methodIndex("HEAD")), .session(.readState))
    }

    func testAllowListsARoutesMethodsWithHeadAndOptions() {
        XCTAssertEqual(Endpoint.allow(.sessions), "GET, HEAD, POST, OPTIONS")
        XCTAssertEqual(Endpoint.allow(.session), "GET, HEAD, DELETE, OPTIONS")
        XCTAssertEqual(Endpoint.allow(.actions), "GET, HEAD, POST, OPTIONS")
        XCTAssertEqual(Endpoint.allow(.events), "GET, HEAD, OPTIONS")
        XCTAssertEqual(Endpoint.serverMethods, "GET, HEAD, POST, DELETE, OPTIONS")
    }

    /// Only the state and the events take `?access_token=`.
    func testOnlyTheBrowserReadsAcceptAQueryToken() {
        XCTAssertEqual(SessionEndpoint.allCases.filter(\.acceptsQueryToken), [.readState, .openEvents])
    }
}
