// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

/// The Thread Sanitizer stage's smaller build (see the end of this file).
let sanitizerBuild = Context.environment["PATHBASE_SANITIZER_BUILD"] == "1"

let package = Package(
    name: "Pathbase",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "Pathbase", targets: ["Pathbase"]),
        .library(name: "PathbaseSQLite", targets: ["PathbaseSQLite"]),
        .library(name: "PathbaseServer", targets: ["PathbaseServer"]),
        .library(name: "PathbasePostgres", targets: ["PathbasePostgres"]),
        .library(name: "PathbaseLiveSync", targets: ["PathbaseLiveSync"]),
        .executable(name: "pathbase", targets: ["pathbase"]),
        .executable(name: "pathbase-bench", targets: ["pathbase-bench"])
    ],
    dependencies: [
        // Macros (@Model, @Property, ...) are compiler plugins built on swift-syntax.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // The `pathbase` command line tool.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SQLiteDatabase: the best-kept SQLite toolkit opens, configures and migrates the
        // file; its GRDBSQLite module gives the C API for the hot paths. Needs libsqlite3-dev
        // on Linux.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Models are `ObservableObject`s: Combine on Apple platforms, its open-source
        // reimplementation on Linux, where Combine does not exist.
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // `pathbase serve`: the sync server's HTTP layer, its bearer tokens, and its logs.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // Live push: the server tells connected replicas of new records over a WebSocket, and
        // the same package's client hears it (no WebSocket client in Linux Foundation).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // SHA-256 for asset names and token hashes: one maintained API on every platform
        // (CryptoKit on Apple platforms, BoringSSL on Linux) instead of a hash of our own.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `pathbase serve --tls-certificate`: TLS for HTTPS and WSS (already in the graph
        // through Hummingbird's TLS module and the WebSocket client).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The owner check of the databases' recursive lock: atomics that work on every
        // platform Pathbase supports (`Synchronization` needs macOS 15). Already in the
        // graph through swift-nio.
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `pathbase serve --postgres`: the sync server's store in PostgreSQL, through a
        // connection pool that never blocks an event loop.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // HTTPS requests that trust a certificate file (see PathbaseLiveSync).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // `swift package generate-documentation`: the DocC catalogs of Pathbase,
        // PathbaseSQLite and PathbaseServer (a command plugin: nothing of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")
    ],
    targets: [
        .macro(
            name: "PathbaseMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax")
            ]
        ),
        .target(
            name: "Pathbase",
            dependencies: [
                "PathbaseMacros",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Atomics", package: "swift-atomics")
            ]
        ),
        // Instance bodies (storage format 6) and the SQL functions that read them, in C:
        // SQLite's function and virtual table interfaces are C.
        .target(
            name: "CPathbaseBodies",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        .target(
            name: "PathbaseSQLite",
            dependencies: [
                "Pathbase",
                "CPathbaseBodies",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift")
            ]
        ),
        .target(
            name: "PathbaseServer",
            dependencies: [
                "Pathbase",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio")
            ]
        ),
        .target(
            name: "PathbasePostgres",
            dependencies: [
                "Pathbase",
                "PathbaseServer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        // The client side of live push: a replica hears of new records over a WebSocket.
        .target(
            name: "PathbaseLiveSync",
            dependencies: [
                "Pathbase",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                // A `wss://` server's certificate checked against a file of trusted ones.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // HTTPSyncTransport(trustedCertificatesFile:): URLSession cannot trust a
                // file on Linux (already resolved: Hummingbird's test client uses it).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        // `pathbase studio`: a read-only web browser of a database file and its history,
        // served by Hummingbird (already in the graph for the sync server).
        .target(
            name: "PathbaseStudio",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // The token's comparison hashes both sides (constant time).
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        .executableTarget(
            name: "pathbase",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                "PathbaseServer",
                "PathbasePostgres",
                "PathbaseStudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        .executableTarget(
            name: "pathbase-bench",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                // `sync` starts the `pathbase serve` child process the tests use.
                "PathbaseTestSupport",
                // `live` holds 1000 live connections to it.
                "PathbaseLiveSync",
                // The raw baseline writes instance bodies as the library does.
                "CPathbaseBodies",
                // Baselines: a hand-written GRDB record, and raw SQLite C calls.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift")
            ],
            path: "Benchmarks/Sources/pathbase-bench"
        ),
        // A child process for the durability tests: writes batches until it is killed.
        .executableTarget(
            name: "PathbaseCrashWriter",
            dependencies: ["Pathbase", "PathbaseSQLite"],
            path: "Tests/PathbaseCrashWriter"
        ),
        // The README's examples as one program (generated by scripts/readme-examples).
        .executableTarget(
            name: "ReadmeExamples",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                // The assets example syncs through a server in the same process.
                "PathbaseServer",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux]))
            ],
            path: "Tests/ReadmeExamples"
        ),
        // The storage tests' VFS (C, on SQLite's VFS interface): fails the Nth write, read,
        // sync, truncate or file-size call, and writes crash and power-loss images.
        .target(
            name: "CPathbaseFaultVFS",
            path: "Tests/CPathbaseFaultVFS",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        // What several test targets share: seeded randomness, stress settings, thread barriers.
        .target(
            name: "PathbaseTestSupport",
            dependencies: ["Pathbase"],
            path: "Tests/PathbaseTestSupport"
        ),
        .testTarget(
            name: "PathbaseTests",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                "PathbaseTestSupport",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux]))
            ]
                // Built so that a test can run the README's examples.
                + (sanitizerBuild ? [] : ["ReadmeExamples"])
        ),
        .testTarget(
            name: "PathbaseSQLiteTests",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                // Tests that edit files by hand read bodies through its SQL functions.
                "CPathbaseBodies",
                // The fault sweep opens files through it.
                "CPathbaseFaultVFS",
                "PathbaseTestSupport",
                // Built so that the durability tests can launch it.
                "PathbaseCrashWriter",
                .product(name: "GRDB", package: "GRDB.swift")
            ]
        ),
        // Runs the built `pathbase` executable as a real process and checks its output.
        .testTarget(
            name: "PathbaseCLITests",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                // ServeProcess: the `pathbase serve` child the outbox tests sync through.
                "PathbaseTestSupport",
                // Studio's address checks (loopback names, allowed Host values), tested directly.
                "PathbaseStudio",
                // Built so that the tests can launch it.
                "pathbase"
            ]
        ),
        .testTarget(
            name: "PathbaseServerTests",
            dependencies: [
                "Pathbase",
                "PathbaseSQLite",
                "PathbaseServer",
                "PathbasePostgres",
                "PathbaseLiveSync",
                "PathbaseTestSupport",
                // Built so that the end-to-end tests can launch `pathbase serve`.
                "pathbase",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The live client's own error (an upgrade refused) is asserted exactly.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // A fresh PostgreSQL database for each test.
                .product(name: "PostgresNIO", package: "postgres-nio")
            ]
        ),
        .testTarget(
            name: "PathbaseMacrosTests",
            dependencies: [
                "PathbaseMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax")
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

// The Thread Sanitizer stage of scripts/reliability builds from scratch in its own scratch path
// and runs suites of PathbaseTests and PathbaseSQLiteTests only: the library, its SQLite store
// and their tests, without the server stack (NIO, Hummingbird, postgres-nio, a second BoringSSL),
// the macro expansion tests (which compile swift-syntax a second time, for the target), the
// command line, the benchmarks and the README program. That build is what fits CI's time.
if sanitizerBuild {
    let unused: Set<String> = [
        "PathbaseServer", "PathbasePostgres", "PathbaseLiveSync", "PathbaseStudio", "pathbase", "pathbase-bench",
        "ReadmeExamples", "PathbaseServerTests", "PathbaseCLITests", "PathbaseMacrosTests"
    ]
    package.targets.removeAll { unused.contains($0.name) }
    package.products.removeAll { unused.contains($0.name) }
}
