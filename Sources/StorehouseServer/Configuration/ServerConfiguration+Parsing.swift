import Foundation

/// What the command line asked for: run the server, or one of the informational answers.
public enum LaunchRequest: Sendable, Equatable {
    case serve(ServerConfiguration)
    case help
    case version
    case healthcheck(ServerConfiguration)
}

/// A flag or variable that cannot be used; `description` is the one line printed before exiting.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}

extension ServerConfiguration {
    /// One row per option: the flag, its environment variable, its help text and how it is applied.
    struct Option: Sendable {
        let flag: String
        let variable: String
        let placeholder: String?   // nil: a switch that takes no value
        let help: String
        let apply: @Sendable (inout ServerConfiguration, String) throws(ConfigurationError) -> Void
    }

    static let options: [Option] = [
        Option(flag: "--host", variable: "HOST", placeholder: "ADDR", help: "address to listen on (default 127.0.0.1)") { c, v throws(ConfigurationError) in
            guard !v.isEmpty else { throw ConfigurationError(description: "--host: must not be empty") }
            c.host = v
        },
        Option(flag: "--port", variable: "PORT", placeholder: "N", help: "TCP port, 0 for any free one (default 8080)") { c, v throws(ConfigurationError) in
            c.port = try integer(v, flag: "--port", in: 0...65_535)
        },
        Option(flag: "--data-dir", variable: "STOREHOUSE_DATA_DIR", placeholder: "DIR", help: "journal and snapshots (default ./data)") { c, v throws(ConfigurationError) in
            guard !v.isEmpty else { throw ConfigurationError(description: "--data-dir: must not be empty") }
            c.dataDirectory = v
        },
        Option(flag: "--fsync", variable: "STOREHOUSE_FSYNC", placeholder: "always|batch|never", help: "when an action is acknowledged (default always)") { c, v throws(ConfigurationError) in
            guard let value = Fsync(rawValue: v) else {
                throw ConfigurationError(description: "--fsync: expected always, batch or never, got '\(v)'")
            }
            c.fsync = value
        },
        Option(flag: "--in-memory", variable: "STOREHOUSE_IN_MEMORY", placeholder: nil, help: "keep nothing on disk") { c, v throws(ConfigurationError) in
            c.inMemory = try boolean(v, flag: "--in-memory")
        },
        Option(flag: "--max-body-bytes", variable: "STOREHOUSE_MAX_BODY_BYTES", placeholder: "N", help: "largest request body (default 1048576)") { c, v throws(ConfigurationError) in
            c.maxBodyBytes = try integer(v, flag: "--max-body-bytes", in: 1...(1 << 30))
        },
        Option(flag: "--max-sessions", variable: "STOREHOUSE_MAX_SESSIONS", placeholder: "N", help: "sessions held at once (default 100000)") { c, v throws(ConfigurationError) in
            c.maxSessions = try integer(v, flag: "--max-sessions", in: 1...10_000_000)
        },
        Option(flag: "--max-connections", variable: "STOREHOUSE_MAX_CONNECTIONS", placeholder: "N", help: "open connections before 503 (default 10000)") { c, v throws(ConfigurationError) in
            c.maxConnections = try integer(v, flag: "--max-connections", in: 1...1_000_000)
        },
        Option(flag: "--io-threads", variable: "STOREHOUSE_IO_THREADS", placeholder: "N", help: "event-loop threads (default: one per core)") { c, v throws(ConfigurationError) in
            c.ioThreads = try integer(v, flag: "--io-threads", in: 1...256)
        },
        Option(flag: "--effect-latency-ms", variable: "STOREHOUSE_EFFECT_LATENCY_MS", placeholder: "N", help: "simulated latency of remote effects (default 50)") { c, v throws(ConfigurationError) in
            c.effectLatencyMilliseconds = try integer(v, flag: "--effect-latency-ms", in: 0...600_000)
        },
        Option(flag: "--heartbeat-s", variable: "STOREHOUSE_HEARTBEAT_S", placeholder: "N", help: "SSE keep-alive comment after N s of silence (default 15)") { c, v throws(ConfigurationError) in
            c.heartbeatSeconds = try integer(v, flag: "--heartbeat-s", in: 1...3_600)
        },
        Option(flag: "--history", variable: "STOREHOUSE_HISTORY", placeholder: "N", help: "actions kept per session for the log, resume and time travel (back to a kept state: up to a tenth more; fewer past 64 MiB of actions or of kept states) (default 10000)") { c, v throws(ConfigurationError) in
            c.history = try integer(v, flag: "--history", in: 1...10_000_000)
        },
        Option(flag: "--subscriber-buffer-bytes", variable: "STOREHOUSE_SUBSCRIBER_BUFFER_BYTES", placeholder: "N", help: "unsent SSE change bytes (a snapshot being sent not counted) before a subscriber is reset to a snapshot (default 1048576)") { c, v throws(ConfigurationError) in
            c.subscriberBufferBytes = try integer(v, flag: "--subscriber-buffer-bytes", in: 1_024...(1 << 30))
        },
        Option(flag: "--shutdown-grace-s", variable: "STOREHOUSE_SHUTDOWN_GRACE_S", placeholder: "N", help: "longest graceful shutdown before connections are cut (default 10)") { c, v throws(ConfigurationError) in
            c.shutdownGraceSeconds = try integer(v, flag: "--shutdown-grace-s", in: 0...600)
        },
        Option(flag: "--max-memory", variable: "STOREHOUSE_MAX_MEMORY", placeholder: "BYTES", help: "memory budget: past it writes get 503 memory-budget, reads go on (default half the machine's or cgroup's memory)") { c, v throws(ConfigurationError) in
            c.maxMemory = try integer(v, flag: "--max-memory", in: (1 << 20)...(1 << 50))
        },
        Option(flag: "--max-action-bytes", variable: "STOREHOUSE_MAX_ACTION_BYTES", placeholder: "N", help: "JSON bytes of one action's payload and meta together (default 262144)") { c, v throws(ConfigurationError) in
            c.maxActionBytes = try integer(v, flag: "--max-action-bytes", in: 64...(1 << 30))
        },
        Option(flag: "--access-log", variable: "STOREHOUSE_ACCESS_LOG", placeholder: "true|false", help: "one line per request on stdout (default true)") { c, v throws(ConfigurationError) in
            c.accessLog = try boolean(v, flag: "--access-log")
        },
        Option(flag: "--admin-token", variable: "STOREHOUSE_ADMIN_TOKEN", placeholder: "TOKEN", help: "operator bearer, at least 32 characters: the admin routes need it and it opens every session (default unset: admin routes answer 403)") { c, v throws(ConfigurationError) in
            // The value is never echoed: an error names the rule, not the secret.
            guard let token = AdminToken(v) else {
                throw ConfigurationError(description: "--admin-token: must be at least \(AdminToken.minimumLength) characters, none of them blank or control characters")
            }
            c.adminToken = token
        },
        Option(flag: "--session-ttl-s", variable: "STOREHOUSE_SESSION_TTL_S", placeholder: "N", help: "delete a session N s after its last request or action, unless created with its own ttlSeconds (default 0: never)") { c, v throws(ConfigurationError) in
            c.sessionTTLSeconds = try integer(v, flag: "--session-ttl-s", in: 0...SessionLifetime.maxTTLSeconds)
        },
        Option(flag: "--create-sessions", variable: "STOREHOUSE_CREATE_SESSIONS", placeholder: "open|admin", help: "who may create sessions: anyone, or only the admin token's holder (default open)") { c, v throws(ConfigurationError) in
            guard let value = CreationPolicy(rawValue: v) else {
                throw ConfigurationError(description: "--create-sessions: expected open or admin, got '\(v)'")
            }
            c.createSessions = value
        },
        Option(flag: "--node-id", variable: "STOREHOUSE_NODE_ID", placeholder: "ID", help: "this node's id in a cluster, [a-z0-9][a-z0-9-]{0,31}: new session ids are ID.<random> (default none)") { c, v throws(ConfigurationError) in
            guard NodeRouting.isValidNodeID(v) else {
                throw ConfigurationError(description: "--node-id: expected [a-z0-9][a-z0-9-]{0,31} (lowercase letters, digits, '-'), got '\(v)'")
            }
            c.nodeID = v
        },
    ]

    /// Reads flags after the program name, then fills the rest from `environment`: a variable is
    /// read only for an option no flag gave, so a bad variable is no obstacle to a flag that
    /// overrides it, and its error names the variable.
    ///
    /// ```swift
    /// let request = try ServerConfiguration.parse(arguments: ["--port", "0", "--in-memory"], environment: [:])
    /// ```
    public static func parse(arguments: [String], environment: [String: String]) throws(ConfigurationError) -> LaunchRequest {
        var flags: [(option: Option, value: String)] = []
        var healthcheck = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--help", "-h": return .help
            case "--version": return .version
            case "healthcheck" where index == 1: healthcheck = true; continue
            default: break
            }
            let (name, inline) = splitInline(argument)
            guard let option = options.first(where: { $0.flag == name }) else {
                throw ConfigurationError(description: "unknown argument '\(argument)' (see storehouse --help)")
            }
            if option.placeholder == nil {
                flags.append((option, inline ?? "true"))
            } else if let inline {
                flags.append((option, inline))
            } else {
                guard index < arguments.count else { throw ConfigurationError(description: "\(name): needs a value (\(option.placeholder ?? ""))") }
                flags.append((option, arguments[index]))
                index += 1
            }
        }
        var configuration = ServerConfiguration()
        for option in options where !flags.contains(where: { $0.option.flag == option.flag }) {
            guard let value = environment[option.variable] else { continue }
            do {
                try option.apply(&configuration, value)
            } catch {
                // "--port: expected …" → "PORT (--port): expected …"
                let reason = error.description.hasPrefix(option.flag + ":") ? String(error.description.dropFirst(option.flag.count + 1)) : " " + error.description
                throw ConfigurationError(description: "\(option.variable) (\(option.flag)):\(reason)")
            }
        }
        for (option, value) in flags { try option.apply(&configuration, value) }
        if configuration.createSessions == .admin && configuration.adminToken == nil && !healthcheck {
            throw ConfigurationError(description: "--create-sessions admin needs --admin-token (or STOREHOUSE_ADMIN_TOKEN): without it no one could create a session")
        }
        return healthcheck ? .healthcheck(configuration) : .serve(configuration)
    }

    /// The text of `storehouse --help`: every flag with its environment variable.
    public static var helpText: String {
        var lines = [
            "usage: storehouse [flags]          serve the API of shared/API.md",
            "       storehouse healthcheck      exit 0 when the server on --host/--port answers /healthz",
            "       storehouse --version | --help",
            "",
            "flags (each also read from the environment variable in brackets; a flag wins):",
        ]
        for option in options {
            let left = "  \(option.flag)\(option.placeholder.map { " \($0)" } ?? "")"
            lines.append(left.padding(toLength: max(left.count + 1, 40), withPad: " ", startingAt: 0) + "\(option.help) [\(option.variable)]")
        }
        return lines.joined(separator: "\n")
    }

    private static func splitInline(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func integer(_ text: String, flag: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(description: "\(flag): expected an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    private static func boolean(_ text: String, flag: String) throws(ConfigurationError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: throw ConfigurationError(description: "\(flag): expected true or false, got '\(text)'")
        }
    }
}
