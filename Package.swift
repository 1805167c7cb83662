// swift-tools-version:6.0
import PackageDescription

// No package dependencies: the toolchain (Foundation, Dispatch, Glibc,
// Synchronization, XCTest) is all Storehouse builds on.
let package = Package(
    name: "storehouse",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "storehouse", targets: ["storehouse"]),
    ],
    targets: [
        // Generic store machinery: JSON, reducers, effects, Store, entity tables, patches.
        .target(name: "StoreCore"),
        // The shipped store kinds (counter, shop, tasks, login) and their registry.
        .target(name: "StoreKinds", dependencies: ["StoreCore"]),
        // HTTP/1.1 over non-blocking sockets; knows nothing of stores.
        .target(name: "HTTPEngine"),
        // Append-only journal and snapshots on disk; knows nothing of stores or HTTP.
        .target(name: "Journal"),
        // The session API of ../shared/API.md on top of the three above.
        .target(name: "StorehouseServer", dependencies: ["StoreCore", "StoreKinds", "HTTPEngine", "Journal"]),
        .executableTarget(name: "storehouse", dependencies: ["StorehouseServer"]),
        .executableTarget(name: "storehouse-bench", dependencies: ["StoreCore", "StoreKinds", "HTTPEngine", "Journal", "StorehouseServer"]),

        .testTarget(name: "StoreCoreTests", dependencies: ["StoreCore"]),
        .testTarget(name: "StoreKindsTests", dependencies: ["StoreCore", "StoreKinds"]),
        .testTarget(name: "HTTPEngineTests", dependencies: ["HTTPEngine"]),
        .testTarget(name: "JournalTests", dependencies: ["Journal"]),
        .testTarget(name: "StorehouseServerTests", dependencies: ["StorehouseServer", "StoreCore", "StoreKinds", "HTTPEngine", "Journal"]),
    ],
    swiftLanguageModes: [.v6]
)
