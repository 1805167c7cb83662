import XCTest
@testable import StorehouseServer

/// API.md "Configuration": every flag, its variable, and one-line errors.
final class ServerConfigurationTests: XCTestCase {
    func testDefaults() throws {
        guard case .serve(let c) = try ServerConfiguration.parse(arguments: [], environment: [:]) else { return XCTFail() }
        XCTAssertEqual(c.host, "127.0.0.1")
        XCTAssertEqual(c.port, 8080)
        XCTAssertEqual(c.dataDirectory, "./data")
        XCTAssertEqual(c.fsync, .always)
        XCTAssertEqual(c.maxBodyBytes, 1 << 20)
        XCTAssertEqual(c.heartbeatSeconds, 15)
        XCTAssertEqual(c.history, 10_000)
        XCTAssertEqual(c.subscriberBufferBytes, 1 << 20)
        XCTAssertEqual(c.effectLatencyMilliseconds, 50)
        XCTAssertFalse(c.inMemory)
    }

    func testFlagsWinOverEnvironment() throws {
        let environment = ["PORT": "9000", "HOST": "0.0.0.0", "STOREHOUSE_DATA_DIR": "/data", "STOREHOUSE_FSYNC": "batch", "STOREHOUSE_IN_MEMORY": "1"]
        guard case .serve(let c) = try ServerConfiguration.parse(arguments: ["--port", "9001", "--fsync=never"], environment: environment) else { return XCTFail() }
        XCTAssertEqual(c.port, 9001)
        XCTAssertEqual(c.host, "0.0.0.0")
        XCTAssertEqual(c.dataDirectory, "/data")
        XCTAssertEqual(c.fsync, .never)
        XCTAssertTrue(c.inMemory)
    }

    func testIOThreads() throws {
        guard case .serve(let defaults) = try ServerConfiguration.parse(arguments: [], environment: [:]) else { return XCTFail() }
        XCTAssertNil(defaults.ioThreads, "one per core unless asked")
        guard case .serve(let c) = try ServerConfiguration.parse(arguments: ["--io-threads", "3"], environment: ["STOREHOUSE_IO_THREADS": "5"]) else { return XCTFail() }
        XCTAssertEqual(c.ioThreads, 3)
        guard case .serve(let e) = try ServerConfiguration.parse(arguments: [], environment: ["STOREHOUSE_IO_THREADS": "5"]) else { return XCTFail() }
        XCTAssertEqual(e.ioThreads, 5)
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: ["--io-threads", "0"], environment: [:])) { error in
            XCTAssertEqual((error as? ConfigurationError)?.description, "--io-threads: expected an integer in 1...256, got '0'")
        }
    }

    func testInvalidValuesNameTheFlag() {
        for (arguments, flag) in [(["--port", "70000"], "--port"), (["--fsync", "sometimes"], "--fsync"),
                                  (["--heartbeat-s", "x"], "--heartbeat-s"), (["--bogus"], "--bogus"), (["--port"], "--port")] {
            XCTAssertThrowsError(try ServerConfiguration.parse(arguments: arguments, environment: [:])) { error in
                XCTAssertTrue("\(error)".contains(flag), "\(error)")
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: [], environment: ["STOREHOUSE_MAX_SESSIONS": "-1"])) { error in
            XCTAssertEqual("\(error)", "STOREHOUSE_MAX_SESSIONS (--max-sessions): expected an integer in 1...10000000, got '-1'")
        }
    }

    func testAFlagOverridesABadVariableWithoutReadingIt() throws {
        // The README: "a flag wins over its variable", so a broken PORT in the environment cannot
        // stop `--port 9001`; the other variables are still read.
        let environment = ["PORT": "x", "STOREHOUSE_HISTORY": "abc", "STOREHOUSE_HEARTBEAT_S": "7"]
        guard case .serve(let c) = try ServerConfiguration.parse(arguments: ["--port", "9001", "--history=5"], environment: environment) else { return XCTFail() }
        XCTAssertEqual(c.port, 9001)
        XCTAssertEqual(c.history, 5)
        XCTAssertEqual(c.heartbeatSeconds, 7)
        XCTAssertEqual(try ServerConfiguration.parse(arguments: ["--help"], environment: environment), .help)
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: ["--history", "5"], environment: environment)) { error in
            XCTAssertEqual("\(error)", "PORT (--port): expected an integer in 0...65535, got 'x'")
        }
    }

    func testHelpListsEveryFlagWithItsVariable() throws {
        XCTAssertEqual(try ServerConfiguration.parse(arguments: ["--help"], environment: [:]), .help)
        XCTAssertEqual(try ServerConfiguration.parse(arguments: ["--version"], environment: [:]), .version)
        let help = ServerConfiguration.helpText
        for (flag, variable) in [("--host", "HOST"), ("--port", "PORT"), ("--data-dir", "STOREHOUSE_DATA_DIR"), ("--fsync", "STOREHOUSE_FSYNC"),
                                 ("--in-memory", "STOREHOUSE_IN_MEMORY"), ("--max-body-bytes", "STOREHOUSE_MAX_BODY_BYTES"),
                                 ("--max-sessions", "STOREHOUSE_MAX_SESSIONS"), ("--max-connections", "STOREHOUSE_MAX_CONNECTIONS"),
                                 ("--effect-latency-ms", "STOREHOUSE_EFFECT_LATENCY_MS"), ("--heartbeat-s", "STOREHOUSE_HEARTBEAT_S"),
                                 ("--history", "STOREHOUSE_HISTORY"), ("--subscriber-buffer-bytes", "STOREHOUSE_SUBSCRIBER_BUFFER_BYTES")] {
            XCTAssertTrue(help.contains(flag) && help.contains("[\(variable)]"), "\(flag) [\(variable)] missing from help")
        }
    }

    func testHealthcheckSubcommand() throws {
        guard case .healthcheck(let c) = try ServerConfiguration.parse(arguments: ["healthcheck", "--port", "1234"], environment: [:]) else { return XCTFail() }
        XCTAssertEqual(c.port, 1234)
        XCTAssertEqual(HealthCheck.run(host: "127.0.0.1", port: 1), 1)
        let fixture = try ServerFixture()
        XCTAssertEqual(HealthCheck.run(host: "127.0.0.1", port: fixture.port), 0)
    }

    /// The server refuses a Host that is not uri-host [":" port] (RFC 9112 §3.2): an IPv6 address
    /// must go in brackets, or a server on ::1 would look unhealthy.
    func testHealthcheckOfAServerOnIPv6() throws {
        let fixture: ServerFixture
        do { fixture = try ServerFixture { $0.host = "::1" } } catch { throw XCTSkip("no IPv6 loopback here: \(error)") }
        XCTAssertEqual(HealthCheck.run(host: "::1", port: fixture.port), 0)
    }
}

/// docs/API.md "Operators": the admin token and the creation policy as flags.
final class AccessConfigurationTests: XCTestCase {
    let secret = "operator-secret-0123456789-abcdefghij"

    func testAdminTokenAndCreationPolicyFromFlagsOrEnvironment() throws {
        guard case .serve(let defaults) = try ServerConfiguration.parse(arguments: [], environment: [:]) else { return XCTFail() }
        XCTAssertNil(defaults.adminToken)
        XCTAssertEqual(defaults.createSessions, .open)
        guard case .serve(let c) = try ServerConfiguration.parse(arguments: ["--create-sessions", "admin"],
                                                                 environment: ["STOREHOUSE_ADMIN_TOKEN": secret]) else { return XCTFail() }
        XCTAssertEqual(c.createSessions, .admin)
        XCTAssertEqual(c.adminToken?.accepts(secret), true)
        XCTAssertEqual(c.adminToken?.accepts(secret + "!"), false)
    }

    func testAdminCreationWithoutATokenStopsTheStartNamingBothFlags() {
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: ["--create-sessions=admin"], environment: [:])) { error in
            let line = "\(error)"
            XCTAssertTrue(line.contains("--create-sessions") && line.contains("--admin-token"), line)
            XCTAssertFalse(line.contains("\n"))
        }
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: [], environment: ["STOREHOUSE_CREATE_SESSIONS": "admin"]))
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: ["--create-sessions", "closed"], environment: [:]))
    }

    func testAShortTokenIsRefusedWithoutEchoingIt() {
        let short = "tooShortSecret-31-characters-xx"
        XCTAssertEqual(short.count, 31)
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: ["--admin-token", short], environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("--admin-token"), "\(error)")
            XCTAssertFalse("\(error)".contains(short), "the secret is never printed: \(error)")
        }
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: [], environment: ["STOREHOUSE_ADMIN_TOKEN": short])) { error in
            XCTAssertFalse("\(error)".contains(short), "\(error)")
        }
    }

    func testTheConfigurationNeverShowsTheToken() throws {
        guard case .serve(let c) = try ServerConfiguration.parse(arguments: ["--admin-token", secret], environment: [:]) else { return XCTFail() }
        for text in ["\(c)", String(describing: c), String(reflecting: c), "\(c.adminToken as Any)"] {
            XCTAssertFalse(text.contains(secret), text)
        }
    }
}
