// swift-tools-version:6.0
import PackageDescription

// No package dependencies: the toolchain (Foundation, Dispatch, Glibc,
// Synchronization, XCTest) is all Storehouse builds on.

// Release builds leave out the runtime's exclusivity checks: 23 per POST, ~2,500 instructions
// (5%) of a request that touches one session's state under its lock, as
// scripts/instructions-per-request.sh counts them. The compiler's static checks stay, and debug
// builds (every test run) keep the runtime checks, so an overlapping access still fails a test.
let releaseSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "storehouse",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "storehouse", targets: ["storehouse"]),
        // For a package that serves kinds of its own: `try Storehouse.main(kinds: [.counter, myKind])`.
        .library(name: "StorehouseServer", targets: ["StorehouseServer"]),
        // State, Action, Reducer, Effect, Kind: what a kind is written with (server and client).
        .library(name: "StoreCore", targets: ["StoreCore"]),
        // The shipped kinds' types, for a client that mirrors one of them.
        .library(name: "StoreKinds", targets: ["StoreKinds"]),
        // TestStore and the patch property check, for a kind's tests.
        .library(name: "StoreTesting", targets: ["StoreTesting"]),
        // A Swift client (Foundation only): typed sends, reads, and a RemoteStore mirror of a session.
        .library(name: "StorehouseClient", targets: ["StorehouseClient"]),
    ],
    targets: [
        // Generic store machinery: JSON, reducers, effects, Store, entity tables, patches.
        .target(name: "StoreCore", swiftSettings: releaseSettings),
        // The shipped store kinds (counter, shop, tasks, login) and their registry.
        .target(name: "StoreKinds", dependencies: ["StoreCore"], swiftSettings: releaseSettings),
        // A session's bookkeeping as values: history window, kept states, idempotency ledger,
        // durability; knows nothing of HTTP, the journal, threads or locks.
        // Its types are generic over the host's answers and reads: cross-module optimization lets
        // the server specialize them, so the bookkeeping costs what it did inside the server.
        .target(name: "SessionCore", dependencies: ["StoreCore"],
                swiftSettings: releaseSettings + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]),
        // What the engine and the journal both need of the system (named threads); Glibc only.
        .target(name: "SystemSupport", swiftSettings: releaseSettings),
        // HTTP/1.1 over non-blocking sockets; knows nothing of stores.
        .target(name: "HTTPEngine", dependencies: ["SystemSupport"], swiftSettings: releaseSettings),
        // Append-only journal and snapshots on disk; knows nothing of stores or HTTP.
        .target(name: "Journal", dependencies: ["SystemSupport"], swiftSettings: releaseSettings),
        // The session API of docs/API.md on top of the four above.
        .target(name: "StorehouseServer", dependencies: ["StoreCore", "StoreKinds", "SessionCore", "HTTPEngine", "Journal", "SystemSupport"],
                swiftSettings: releaseSettings),
        // TestStore and property checks for kinds; links XCTest, so only test targets depend on it.
        .target(name: "StoreTesting", dependencies: ["StoreCore"]),
        // The client side of docs/API.md over URLSession; shares the kinds' State and Action types.
        .target(name: "StorehouseClient", dependencies: ["StoreCore"]),
        .executableTarget(name: "storehouse", dependencies: ["StorehouseServer"], swiftSettings: releaseSettings),
        .executableTarget(name: "storehouse-bench", dependencies: ["StoreCore", "StoreKinds", "HTTPEngine", "Journal", "StorehouseServer", "SystemSupport"]),

        .testTarget(name: "StoreCoreTests", dependencies: ["StoreCore", "StoreTesting"]),
        .testTarget(name: "StoreKindsTests", dependencies: ["StoreCore", "StoreKinds", "StoreTesting"]),
        .testTarget(name: "SessionCoreTests", dependencies: ["SessionCore", "StoreCore"]),
        .testTarget(name: "HTTPEngineTests", dependencies: ["HTTPEngine"]),
        .testTarget(name: "JournalTests", dependencies: ["Journal"]),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport"]),
        .testTarget(name: "StorehouseClientTests", dependencies: ["StorehouseClient", "StorehouseServer", "StoreCore", "StoreKinds"]),
        .testTarget(name: "StorehouseServerTests", dependencies: ["StorehouseServer", "StoreCore", "StoreKinds", "SessionCore", "HTTPEngine", "Journal"]),
    ],
    swiftLanguageModes: [.v6]
)
