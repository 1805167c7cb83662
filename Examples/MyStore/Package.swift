// swift-tools-version:6.0
import PackageDescription

// A package of one's own that serves its own kinds with Storehouse, depending on it by path
// (from a clone: `.package(url: "<the repository>", branch: "main")`).
let package = Package(
    name: "MyStore",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "storehouse", path: "../.."),
    ],
    targets: [
        // The kinds: State, Action and reducer, shared by the server and the client.
        .target(name: "Notes", dependencies: [.product(name: "StoreCore", package: "storehouse")]),
        .target(name: "SignIn", dependencies: [.product(name: "StoreCore", package: "storehouse")]),
        // The server: the shipped counter and the two kinds above.
        .executableTarget(name: "my-store", dependencies: [
            "Notes", "SignIn",
            .product(name: "StorehouseServer", package: "storehouse"),
        ]),
        // A client that mirrors a notes session into a typed local state.
        .executableTarget(name: "my-client", dependencies: [
            "Notes",
            .product(name: "StorehouseClient", package: "storehouse"),
        ]),
        .testTarget(name: "MyStoreTests", dependencies: [
            "Notes", "SignIn",
            .product(name: "StoreTesting", package: "storehouse"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
